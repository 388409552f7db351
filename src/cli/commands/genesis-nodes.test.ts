/**
 * `ibex genesis --validators N --full-nodes M …` lays out a local network: every node directory
 * loads as a config of its own, with the right ports, keys and the other nodes as bootnodes.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { addressOfPrivateKey } from '../../config/accounts.js'
import { readExtraDataValidators } from '../../config/genesis.js'
import { parsePrivateKeyHex } from '../../config/keys.js'
import { loadConfig } from '../../config/load.js'
import { nodeKeyPath, peerIdOfSeed, readNodeKeySeed } from '../../p2p/identity.js'
import type { CliIo } from '../io.js'
import { runCli } from '../run.js'

const dir = mkdtempSync(join(tmpdir(), 'ibex-genesis-nodes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = []
  const stderr: string[] = []
  return {
    stdout,
    stderr,
    out: (l: string) => stdout.push(l),
    err: (l: string) => stderr.push(l),
    onSignal: () => () => {},
    exit: () => {},
  } as unknown as CliIo & { stdout: string[]; stderr: string[] }
}

describe('ibex genesis: node directories', () => {
  it('4 validators + 1 full node: ports, keys, bootnodes, prefund, round timeout', async () => {
    const out = join(dir, 'net')
    const funded = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
    const io = captureIo()
    const args = ['genesis', '--validators', '4', '--full-nodes', '1', '--chain-id', '7860', '--block-time', '1s']
    args.push('--out', out, '--http-base-port', '18545', '--p2p-base-port', '31303', '--ibft.round-timeout', '2s')
    args.push('--span-blocks', '16', '--producers', '3')
    args.push('--prefund', `${funded}=1000ether`, '--prefund', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8=7')
    expect(await runCli(args, io), io.stderr.join('\n')).toBe(0)
    const genesis = JSON.parse(readFileSync(join(out, 'genesis.json'), 'utf8'))
    expect(genesis.config.chainId).toBe(7860)
    expect(BigInt(genesis.alloc[funded].balance)).toBe(1000n * 10n ** 18n)
    expect(BigInt(genesis.alloc['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'].balance)).toBe(7n)
    const validators = readExtraDataValidators(genesis.extraData)
    const peerIds = [1, 2, 3, 4, 5].map((i) =>
      peerIdOfSeed(readNodeKeySeed(nodeKeyPath(join(out, `node${i}`))) as Uint8Array),
    )
    for (const i of [1, 2, 3, 4, 5]) {
      const file = join(out, `node${i}`, 'config.toml')
      // the chain is the genesis file's: no network preset is written
      expect(readFileSync(file, 'utf8')).not.toMatch(/^network\s*=/m)
      const { config } = loadConfig(['start', '--config', file], {})
      expect(config.datadir).toBe(join(out, `node${i}`))
      expect(config.genesisFile).toBe(join(out, 'genesis.json'))
      expect(config.blockTimeMs).toBe(1000)
      expect(config.jsonrpc.port).toBe(18545 + i - 1)
      expect(config.p2p?.port).toBe(31303 + i - 1)
      expect(config.ibft.roundTimeoutBaseMs).toBe(2000)
      expect(config.ibft.spanBlocks).toBe(16)
      expect(config.ibft.producers).toBe(3)
      expect(config.p2p?.bootnodes).toEqual(
        [1, 2, 3, 4, 5].filter((j) => j !== i).map((j) => `/ip4/127.0.0.1/tcp/${31303 + j - 1}/p2p/${peerIds[j - 1]}`),
      )
      expect(statSync(nodeKeyPath(config.datadir)).mode & 0o777).toBe(0o600)
      if (i <= 4) {
        const keyFile = config.validatorKeyFile as string
        expect(keyFile).toBe(join(out, `validator-${i - 1}.key`))
        expect(addressOfPrivateKey(parsePrivateKeyHex(readFileSync(keyFile, 'utf8'), keyFile))).toBe(validators[i - 1])
      } else {
        expect(config.validatorKeyFile).toBeUndefined()
      }
    }
    expect(io.stdout.at(-1)).toBe(`Start node i with: ibex start --config ${join(out, 'node<i>', 'config.toml')}`)
  })

  it('writes spans off (span_blocks 0, producers 0) unless asked', async () => {
    const out = join(dir, 'plain')
    expect(await runCli(['genesis', '--validators', '1', '--out', out], captureIo())).toBe(0)
    const { config } = loadConfig(['start', '--config', join(out, 'node1', 'config.toml')], {})
    expect([config.ibft.spanBlocks, config.ibft.producers]).toEqual([0, 0])
    expect(readFileSync(join(out, 'node1', 'config.toml'), 'utf8')).toMatch(/^span_blocks = 0\nproducers = 0$/m)
  })

  it('refuses --full-nodes with --addresses, and never overwrites a node directory', async () => {
    const io = captureIo()
    const a = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    expect(await runCli(['genesis', '--addresses', a, '--full-nodes', '1', '--out', join(dir, 'x')], io)).toBe(2)
    const out = join(dir, 'twice')
    expect(await runCli(['genesis', '--validators', '2', '--out', out], io)).toBe(0)
    rmSync(join(out, 'genesis.json'))
    expect(await runCli(['genesis', '--validators', '1', '--out', out], io)).toBe(2)
    expect(io.stderr.at(-1)).toMatch(/already exists/)
  })
})
