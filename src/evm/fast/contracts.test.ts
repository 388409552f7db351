/**
 * Differential test of the fast interpreter on the real contracts every preset carries in its
 * genesis (contracts/: the Validator DAO on OpenZeppelin 5, Safe 1.4.1): every view and pure
 * function of their ABIs, with plausible arguments, from no sender and from a dev account, through
 * the fast path and through ethereumjs — on the genesis state and after a seat, a proposal and a
 * Safe transaction hash exist. Plus Safe's signature checks with good and bad signatures (its
 * GS0xx revert paths). Every answer (return data, gas used, error, revert flag) must be equal, and
 * the fast path must answer all of them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { secp256k1 } from 'ethereum-cryptography/secp256k1.js'
import { type FunctionFragment, Interface, type ParamType } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../config/accounts.js'
import { keccak256 } from '../../util/crypto.js'
import type { CallRequest } from '../call.js'
import { differential, openDiffChain, shown } from '../../../test/helpers/fastEvm.js'
import { validateTransaction } from '../../../test/helpers/chain.js'

const ROOT = join(import.meta.dirname, '..', '..', '..')
const ADDRESSES = (
  JSON.parse(readFileSync(join(ROOT, 'deploy', 'dao-addresses.json'), 'utf8')) as { dev: Record<string, string> }
).dev
const abiOf = (name: string) => new Interface(readFileSync(join(ROOT, 'contracts', 'abi', `${name}.json`), 'utf8'))
/** Which ABI each predeployed address answers (a Safe: the singleton's and its fallback handler's). */
const TARGETS: [string, string[]][] = [
  ['KycRegistry', ['KycRegistry']],
  ['ValidatorNFT', ['ValidatorNFT']],
  ['ValidatorDAO', ['ValidatorDAO']],
  ['DaoGovernor', ['DaoGovernor']],
  ['DaoTimelock', ['DaoTimelock']],
  ['RevenuePool', ['RevenuePool']],
  ['DisputeResolution', ['DisputeResolution']],
  ['DaoLens', ['DaoLens']],
  ['OpsSafe', ['SafeL2', 'CompatibilityFallbackHandler']],
  ['TreasurySafe', ['SafeL2', 'CompatibilityFallbackHandler']],
  ['ShariahBoardSafe', ['SafeL2', 'CompatibilityFallbackHandler']],
  ['SafeL2', ['SafeL2']],
  ['CompatibilityFallbackHandler', ['CompatibilityFallbackHandler']],
]
const GAS = 30_000_000n
const COIN = 10n ** 18n
const accounts = devAccounts(20)
const dev = (i: number) => (accounts[i] as { address: string }).address.toLowerCase()
const keyOf = (i: number) => hexToBytes((accounts[i] as { privateKey: string }).privateKey as `0x${string}`)
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'))
const id = (s: string) => `0x${hex(keccak256(Buffer.from(s)))}`

/** Plausible values per ABI type (cycled through across the variants of a call). */
function valuesOf(p: ParamType): unknown[] {
  if (p.baseType === 'array') {
    const inner = valuesOf(p.arrayChildren as ParamType)
    return [[], [inner[1 % inner.length]], inner.slice(0, 2)]
  }
  if (p.baseType === 'tuple') {
    const parts = (p.components as readonly ParamType[]).map(valuesOf)
    return [0, 1, 2].map((k) => parts.map((v) => v[k % v.length]))
  }
  const t = p.type
  if (t === 'address') return [dev(10), ADDRESSES.OpsSafe, `0x${'00'.repeat(20)}`, dev(0), ADDRESSES.ValidatorNFT]
  if (t === 'bool') return [true, false]
  if (t === 'bytes32') return [`0x${'00'.repeat(32)}`, id('KYC_ATTESTOR_ROLE'), id('MEMBERSHIP_ROLE')]
  if (t === 'bytes4') return ['0x01ffc9a7', '0x80ac58cd', '0xffffffff', '0x7965db0b']
  if (t === 'bytes') return ['0x', '0x1626ba7e', `0x${'ab'.repeat(70)}`]
  if (t === 'string') return ['', 'seat']
  if (t === 'uint8') return [3, 0, 1, 2]
  if (t.startsWith('uint') || t.startsWith('int')) return [51n, 0n, 1n, 151n, 11n, (1n << 48n) - 1n]
  throw new Error(`no values for ${t}`)
}

/** Every view / pure function of the target's ABIs, each with three argument variants. */
function viewCalls(label: string, to: Uint8Array, abis: string[]): [string, CallRequest, bigint][] {
  const cases: [string, CallRequest, bigint][] = []
  for (const name of abis) {
    const iface = abiOf(name)
    iface.forEachFunction((f: FunctionFragment) => {
      if (f.stateMutability !== 'view' && f.stateMutability !== 'pure') return
      const values = f.inputs.map(valuesOf)
      const variants = f.inputs.length === 0 ? 1 : 3
      for (let k = 0; k < variants; k++) {
        const data = bytes(
          iface.encodeFunctionData(
            f,
            values.map((v) => v[k % v.length]),
          ),
        )
        cases.push([`${label}.${f.format('sighash')} #${k}`, { to, data }, GAS])
        if (k === 0)
          cases.push([`${label}.${f.format('sighash')} from dev 10`, { from: bytes(dev(10)), to, data }, GAS])
      }
    })
  }
  return cases
}

let dir: string
let ctx: Awaited<ReturnType<typeof openDiffChain>>
const nonces = new Map<number, bigint>()

/** Sends one transaction per entry from dev account `who` in one block (each must succeed). */
async function send(txs: { who: number; to: string; data: string; value?: bigint }[]): Promise<void> {
  const { chain } = ctx
  const signed = []
  for (const t of txs) {
    const nonce = nonces.get(t.who) ?? (await chain.admission().account(bytes(dev(t.who)))).nonce
    nonces.set(t.who, nonce + 1n)
    const tx = createTx(
      {
        type: 2,
        nonce,
        to: bytes(t.to),
        data: bytes(t.data),
        value: t.value ?? 0n,
        gasLimit: 3_000_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: chain.common },
    ).sign(keyOf(t.who))
    signed.push(await validateTransaction(tx.serialize(), chain.admission()))
  }
  const { block, included } = await chain.builder.build(signed, chain.store.head.header.timestamp + 2n)
  expect(included.length).toBe(txs.length)
  const receipts = chain.store.getReceipts(block.hash) ?? []
  expect(receipts.map((r) => (r as { status?: number }).status ?? 1)).toEqual(txs.map(() => 1))
}

async function read(to: string, iface: Interface, fn: string, args: unknown[] = []): Promise<unknown[]> {
  const d = await differential(ctx.env(), { to: bytes(to), data: bytes(iface.encodeFunctionData(fn, args)) }, GAS)
  return [...iface.decodeFunctionResult(fn, `0x${hex((d.fast.outcome as { returnValue: Uint8Array }).returnValue)}`)]
}

async function compareAll(cases: [string, CallRequest, bigint][]): Promise<{ bailed: string[]; reverted: number }> {
  const bailed: string[] = []
  let reverted = 0
  for (const [what, req, gas] of cases) {
    const d = await differential(ctx.env(), req, gas)
    expect({ what, ...shown(d.fast) }).toEqual({ what, ...shown(d.slow) })
    if (!d.answered) bailed.push(`${what}: ${d.bailReason}`)
    if (d.fast.outcome?.reverted) reverted++
  }
  return { bailed, reverted }
}

function allViews(): [string, CallRequest, bigint][] {
  return TARGETS.flatMap(([name, abis]) => viewCalls(name, bytes(ADDRESSES[name] as string), abis))
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-fast-dao-'))
  ctx = await openDiffChain(dir)
}, 60_000)

afterAll(async () => {
  await ctx?.chain.db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('fast interpreter on the genesis contracts', () => {
  it('has the DAO and the Safes in the dev genesis', async () => {
    const nft = abiOf('ValidatorNFT')
    expect(await read(ADDRESSES.ValidatorNFT as string, nft, 'name')).toEqual([expect.any(String)])
    expect((await read(ADDRESSES.OpsSafe as string, abiOf('SafeL2'), 'getThreshold'))[0]).toBe(2n)
  })

  it('answers every view of the genesis state exactly', async () => {
    const cases = allViews()
    const { bailed, reverted } = await compareAll(cases)
    expect(bailed).toEqual([])
    expect(cases.length).toBeGreaterThan(400)
    expect(reverted).toBeGreaterThan(10)
  }, 120_000)

  it('answers every view after a seat, a proposal and an approved Safe hash exactly', async () => {
    const kyc = abiOf('KycRegistry')
    const dao = abiOf('ValidatorDAO')
    const gov = abiOf('DaoGovernor')
    const now = chainTime()
    await send([
      {
        who: 1,
        to: ADDRESSES.KycRegistry as string,
        data: kyc.encodeFunctionData('attest', [dev(10), id('identity of dev 10'), 1, now + 10n ** 6n, id('evidence')]),
      },
    ])
    const docs = await Promise.all(
      ['disclaimerHash', 'riskWarningHash', 'informationMemorandumHash'].map(
        async (f) => (await read(ADDRESSES.ValidatorDAO as string, dao, f))[0],
      ),
    )
    const minimum = (await read(ADDRESSES.ValidatorDAO as string, dao, 'minStake', [3]))[0] as bigint
    expect(minimum).toBeLessThan(10n ** 6n * COIN)
    await send([
      {
        who: 10,
        to: ADDRESSES.ValidatorDAO as string,
        data: dao.encodeFunctionData('applyForSeat', [3, ...docs, id('form')]),
        value: minimum,
      },
    ])
    const count = (await read(ADDRESSES.ValidatorDAO as string, dao, 'applicationCount'))[0] as bigint
    await send([
      { who: 2, to: ADDRESSES.ValidatorDAO as string, data: dao.encodeFunctionData('approveApplication', [count]) },
    ])
    const proposal = [
      [ADDRESSES.KycRegistry],
      [0n],
      [kyc.encodeFunctionData('revoke', [dev(10), id('x')])],
      'revoke for a test',
    ]
    await send([{ who: 10, to: ADDRESSES.DaoGovernor as string, data: gov.encodeFunctionData('propose', proposal) }])
    // a Safe owner approves a hash (Safe's approvedHashes and v=1 signatures)
    const safe = abiOf('SafeL2')
    await send([
      { who: 0, to: ADDRESSES.OpsSafe as string, data: safe.encodeFunctionData('approveHash', [id('approved')]) },
    ])
    const seats = (await read(ADDRESSES.ValidatorNFT as string, abiOf('ValidatorNFT'), 'totalSupply'))[0]
    expect(seats).toBe(1n)
    const proposalId = (
      await read(ADDRESSES.DaoGovernor as string, gov, 'hashProposal', [
        proposal[0],
        proposal[1],
        proposal[2],
        id(proposal[3] as string),
      ])
    )[0] as bigint
    const cases = allViews()
    const views = abiOf('DaoLens')
    cases.push([
      'DaoLens.proposal(id)',
      { to: bytes(ADDRESSES.DaoLens as string), data: bytes(views.encodeFunctionData('proposal', [proposalId])) },
      GAS,
    ])
    for (const f of [
      'state',
      'proposalSnapshot',
      'proposalDeadline',
      'proposalVotes',
      'proposalHoldings',
      'proposalProposer',
    ]) {
      cases.push([
        `DaoGovernor.${f}(id)`,
        { to: bytes(ADDRESSES.DaoGovernor as string), data: bytes(gov.encodeFunctionData(f, [proposalId])) },
        GAS,
      ])
    }
    const { bailed } = await compareAll(cases)
    expect(bailed).toEqual([])
  }, 180_000)

  it("answers Safe's transaction hash and signature checks (good and bad signatures)", async () => {
    const safe = abiOf('SafeL2')
    const ops = ADDRESSES.OpsSafe as string
    const nonce = (await read(ops, safe, 'nonce'))[0] as bigint
    const txArgs = [dev(7), 5n, '0x1234', 0, 0n, 0n, 0n, `0x${'00'.repeat(20)}`, `0x${'00'.repeat(20)}`, nonce]
    const hash = (await read(ops, safe, 'getTransactionHash', txArgs))[0] as string
    const sign = (i: number, h: string, vOffset = 0) => {
      const sig = secp256k1.sign(bytes(h), keyOf(i))
      return {
        owner: dev(i),
        sig:
          sig.r.toString(16).padStart(64, '0') +
          sig.s.toString(16).padStart(64, '0') +
          (27 + sig.recovery + vOffset).toString(16),
      }
    }
    const ordered = (list: { owner: string; sig: string }[]) =>
      `0x${[...list]
        .sort((a, b) => (a.owner < b.owner ? -1 : 1))
        .map((s) => s.sig)
        .join('')}`
    const ethSignHash = `0x${hex(keccak256(Buffer.concat([Buffer.from('\x19Ethereum Signed Message:\n32'), bytes(hash)])))}`
    const approvedBy0 = `${'00'.repeat(12)}${dev(0).slice(2)}${'00'.repeat(32)}01`
    const contractSig = (offset: bigint) =>
      `${'00'.repeat(12)}${dev(0).slice(2)}${offset.toString(16).padStart(64, '0')}00`
    const data = '0x'
    const signatures: [string, string][] = [
      ['two owners in order', ordered([sign(0, hash), sign(1, hash)])],
      [
        'two owners out of order',
        `0x${[sign(0, hash), sign(1, hash)]
          .sort((a, b) => (a.owner < b.owner ? 1 : -1))
          .map((s) => s.sig)
          .join('')}`,
      ],
      ['one owner twice', `0x${sign(0, hash).sig}${sign(0, hash).sig}`],
      ['a non-owner', ordered([sign(0, hash), sign(12, hash)])],
      [
        'eth_sign (v + 4)',
        `0x${[sign(0, ethSignHash, 4), sign(1, ethSignHash, 4)]
          .sort((a, b) => (a.owner < b.owner ? -1 : 1))
          .map((s) => s.sig)
          .join('')}`,
      ],
      ['too short', '0x1234'],
      ['empty', '0x'],
      ['garbage', `0x${'5a'.repeat(130)}`],
      ['approved hash not approved', `0x${approvedBy0}${sign(1, hash).sig}`],
      ['contract signature out of bounds', `0x${contractSig(1000n)}${sign(1, hash).sig}`],
      ['contract signature inside the static part', `0x${contractSig(10n)}${sign(1, hash).sig}`],
    ]
    const cases: [string, CallRequest, bigint][] = []
    for (const [what, sigs] of signatures) {
      cases.push([
        `checkSignatures: ${what}`,
        { to: bytes(ops), data: bytes(safe.encodeFunctionData('checkSignatures', [hash, data, sigs])) },
        GAS,
      ])
      cases.push([
        `checkNSignatures 1: ${what}`,
        { to: bytes(ops), data: bytes(safe.encodeFunctionData('checkNSignatures', [hash, data, sigs, 1n])) },
        GAS,
      ])
      cases.push([
        `checkSignatures at 60k gas: ${what}`,
        { to: bytes(ops), data: bytes(safe.encodeFunctionData('checkSignatures', [hash, data, sigs])) },
        60_000n,
      ])
    }
    // an approved hash with v = 1 from its approver passes
    cases.push([
      'checkNSignatures approved hash',
      {
        to: bytes(ops),
        data: bytes(safe.encodeFunctionData('checkNSignatures', [id('approved'), '0x', `0x${approvedBy0}`, 1n])),
      },
      GAS,
    ])
    cases.push([
      'execTransaction with bad signatures',
      { to: bytes(ops), data: bytes(safe.encodeFunctionData('execTransaction', [...txArgs.slice(0, 9), '0x1234'])) },
      GAS,
    ])
    cases.push([
      'execTransaction with good signatures',
      {
        from: bytes(dev(0)),
        to: bytes(ops),
        data: bytes(safe.encodeFunctionData('execTransaction', [...txArgs.slice(0, 9), signatures[0]?.[1]])),
      },
      GAS,
    ])
    const { bailed, reverted } = await compareAll(cases)
    expect(bailed).toEqual([])
    expect(reverted).toBeGreaterThan(10)
  }, 120_000)
})

function chainTime(): bigint {
  return ctx.chain.store.head.header.timestamp
}
