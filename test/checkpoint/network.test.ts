/**
 * Checkpoints end to end (issue 20; VALIDATORS.md "What works means"), real processes on loopback:
 * anvil as the base chain, `ibex genesis --validators 4 --full-nodes 1 --checkpoint.base-rpc …`
 * (the [checkpoint] section in every node config), the nodes started, `ibex checkpoint deploy
 * --write-config` (CheckpointManager with the DAO's set read from node 1, ExitVault), the nodes
 * restarted with checkpoints on. Then, on a 4 s cadence:
 *   - consecutive checkpoints (ids 10000, 20000…, ranges from block 1 with no gap or overlap), each
 *     signed by all four, each root equal to rootFromRpc (test/checkpoint/rootCheck.ts, viem only)
 *     over the full node's blocks; `ibex checkpoint status` shows them;
 *   - a stake top-up in the DAO: the next checkpoint carries the new set, and the contract's power
 *     of that validator is its new stake;
 *   - one validator stopped: checkpoints go on with 3 signatures and its uptime falls
 *     (validators_getUptime on the full node); back, it signs again and its uptime rises;
 *   - two stopped (half the power): no checkpoint while they are down, none short of 3 signers;
 *     back, checkpoints resume;
 *   - anvil frozen (SIGSTOP) for 12 s and thawed: checkpoints resume with no gap and no duplicate.
 * The full node also serves the built-in explorer (--explorer, --http.api with ots, bor and
 * validators): once the first checkpoints exist, headless Chromium (test/explorer/browser.ts) opens
 * its checkpoint list, a checkpoint, a block's checkpoint, the validators' uptime and a search, and
 * each must show what the same node's validators_* methods answer.
 * It prints the time from a block to the checkpoint holding it (child block timestamp to the base
 * block that stored the checkpoint), measured over every checkpoint of the run.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { encodeFunctionData, type Hex, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Chain } from '../../scripts/dao/client.js'
import { DAO_ADDRESSES } from '../../scripts/dao/plan.js'
import { kvRow, launchBrowser, openPage, readTable, searchFor, waitForRoute } from '../explorer/browser.js'
import { REPO_ROOT } from '../helpers/compile.js'
import { DEV_ACCOUNTS } from '../helpers/dev.js'
import { IBEX_BIN, rpc, waitFor } from '../helpers/node.js'
import { Cluster } from '../ibft-network/cluster.js'
import { type Anvil, startAnvil } from '../trace/helpers/anvil.js'
import { rootFromRpc } from './rootCheck.js'

const CHAIN_ID = 7862
const COIN = 10n ** 18n
/** Added to validator 0's seat through ValidatorDAO.topUp: a change of the DAO's set the contract must follow. */
const TOP_UP = 1_000n * COIN
const FUNDER = DEV_ACCOUNTS[0]
/** The bridged token pair deployed with the contracts (ibex checkpoint deploy --token). */
const TOKEN_SUPPLY = 1_000n * COIN
const BURNED = 7n * COIN
/** anvil's second dev account: sends the exits (anyone may). */
const EXITER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const TOKEN_ABI = parseAbi([
  'function withdraw(uint256 amount)',
  'function balanceOf(address owner) view returns (uint256)',
  'function exit(bytes payload)',
])
/** anvil's first dev account: pays for the deployment. */
const DEPLOYER_KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const FULL_NODE = 5
/** Cadence and windows in seconds, so the test runs in minutes on a loaded 2-core box. */
const CHECKPOINT_FLAGS = [
  '--checkpoint.interval', '4s',
  '--checkpoint.grace', '1s',
  '--checkpoint.proposer-timeout', '8s',
  '--checkpoint.poll-interval', '500ms',
  '--checkpoint.confirmations', '1',
]
/** Longest wait for the next checkpoint: several cadences, proposer handovers and a slow box. */
const CHECKPOINT_WAIT_MS = 120_000
/** How long two stopped validators are kept down (several cadences). */
const OUTAGE_MS = 15_000
/** Selector of CheckpointManager.powerOf(address). */
const POWER_OF_SELECTOR = '1ac84690'
/** Tries of a node restart (restart()). */
const START_ATTEMPTS = 3
/** After validators stop, time for a submission already signed to land before counting. */
const SETTLE_MS = 5_000
/** How long anvil is frozen. */
const FREEZE_MS = 12_000
/** The full node serves the explorer and the namespaces its pages read (README "Built-in explorer"). */
const EXPLORER_FLAGS = ['--explorer', '--http.api', 'eth,net,web3,txpool,ots,bor,validators']
/** Checkpoints a page of the explorer's list shows (app.js CHECKPOINT_PAGE). */
const EXPLORER_LIST_PAGE = 10

interface CheckpointJson {
  id: string
  start: string
  end: string
  root: string
  proposer: string
  signers: string[]
  baseTxHash: string | null
}

interface UptimeJson {
  validators: { signer: string; signed: number; of: number; uptime: number; health: string }[]
}

let anvil: Anvil
let net: Cluster
let fullUrl: string
let deployOutput: string

async function count(): Promise<number> {
  return Number(BigInt(await rpc<string>(fullUrl, 'validators_getCheckpointCount')))
}

/** The full node's head number. */
async function head(): Promise<bigint> {
  return BigInt(await rpc<string>(fullUrl, 'eth_blockNumber'))
}

async function checkpointAt(k: number): Promise<CheckpointJson> {
  return rpc<CheckpointJson>(fullUrl, 'validators_getCheckpoint', [`0x${(k * 10_000).toString(16)}`])
}

async function all(): Promise<CheckpointJson[]> {
  const n = await count()
  return Promise.all(Array.from({ length: n }, (_, i) => checkpointAt(i + 1)))
}

/** Waits until the base chain holds `n` checkpoints; returns the count reached. */
async function untilCount(n: number, what: string): Promise<number> {
  return waitFor(async () => {
    const c = await count().catch(() => 0)
    return c >= n ? c : undefined
  }, { timeoutMs: CHECKPOINT_WAIT_MS, intervalMs: 500, what: `${what} (checkpoint ${n})` })
}

async function uptimeOf(signer: string): Promise<UptimeJson['validators'][number]> {
  const u = await rpc<UptimeJson>(fullUrl, 'validators_getUptime')
  const v = u.validators.find((x) => x.signer === signer)
  if (v === undefined) throw new Error(`${signer} not in the uptime table: ${JSON.stringify(u)}`)
  return v
}

/**
 * Starts node `i` again; a restart can lose its p2p port to another process's outgoing connection
 * (ports come from the ephemeral range), so it is tried a few times.
 */
async function restart(i: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await net.start(i)
      return
    } catch (err) {
      if (attempt >= START_ATTEMPTS || !/failed to be listened on/.test(String(err))) throw err
      await new Promise((r) => setTimeout(r, 2_000))
    }
  }
}

/** The explorer's short form of a hash (app.js short). */
function short(hex: string): string {
  return hex.length > 18 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : hex
}

/** Every checkpoint continues the one before it, from block 1; ids step by 10000. */
function expectConsecutive(list: CheckpointJson[]): void {
  let end = 0n
  list.forEach((c, i) => {
    expect(BigInt(c.id), `checkpoint ${i + 1}`).toBe(BigInt(i + 1) * 10_000n)
    expect(BigInt(c.start), `checkpoint ${c.id} start`).toBe(end + 1n)
    expect(BigInt(c.end)).toBeGreaterThanOrEqual(BigInt(c.start))
    end = BigInt(c.end)
  })
}

beforeAll(async () => {
  anvil = await startAnvil()
  net = await Cluster.create({
    validators: 4,
    fullNodes: 1,
    chainId: CHAIN_ID,
    blockTime: '1s',
    roundTimeout: '1s',
    prefund: [`${FUNDER.address}=10000ether`],
    genesisArgs: ['--checkpoint.base-rpc', anvil.url, ...CHECKPOINT_FLAGS],
    startArgs: { [FULL_NODE]: EXPLORER_FLAGS },
  })
  fullUrl = net.node(FULL_NODE).url
  await Promise.all(net.nodes.map((n) => net.start(n.index)))
  await waitFor(async () => Number(BigInt(await rpc<string>(fullUrl, 'eth_blockNumber'))) >= 3, {
    timeoutMs: 60_000,
    intervalMs: 250,
    what: 'blocks before the deployment',
  })
  // each validator pays for the checkpoints it submits (its signer key by default)
  for (const v of net.validators) await rpc(anvil.url, 'anvil_setBalance', [v, '0x3635c9adc5dea00000'])
  const keyFile = join(net.dir, 'deployer.key')
  writeFileSync(keyFile, `${DEPLOYER_KEY}\n`)
  const childKeyFile = join(net.dir, 'funder.key')
  writeFileSync(childKeyFile, `${FUNDER.privateKey.replace(/^0x/, '')}\n`)
  const deploy = ['checkpoint', 'deploy', '--config', net.node(1).config, '--key', keyFile, '--write-config', net.dir]
  deploy.push('--token', `Test Token:TT:${TOKEN_SUPPLY}`, '--child-key', childKeyFile)
  const out = execFileSync(process.execPath, [IBEX_BIN, ...deploy], { cwd: REPO_ROOT, encoding: 'utf8' })
  deployOutput = out
  expect(out).toMatch(/CheckpointManager 0x[0-9a-f]{40}/)
  expect(out.match(/wrote \[checkpoint\]/g)).toHaveLength(5)
  // restart with checkpoints on, as an operator would
  for (const n of net.nodes) await net.stop(n.index)
  await Promise.all(net.nodes.map((n) => restart(n.index)))
}, 300_000)

afterAll(async () => {
  await net?.cleanup()
  await anvil?.stop()
}, 60_000)

describe('checkpoints to anvil from a 4-validator network', () => {
  it('checkpoints consecutive ranges signed by all four, each root as rootFromRpc computes it', async () => {
    await untilCount(3, 'the first checkpoints')
    const list = await all()
    expectConsecutive(list)
    for (const c of list) {
      expect(c.signers, `checkpoint ${c.id}`).toHaveLength(4)
      expect([...c.signers].sort()).toEqual([...net.validators].sort())
      expect(c.root, `root of checkpoint ${c.id}`).toBe(await rootFromRpc(fullUrl, BigInt(c.start), BigInt(c.end)))
      expect(net.validators).toContain(c.proposer)
    }
    // a validator shows the checkpoint being voted: it continues one the contract stores
    const proposal = await waitFor(
      () => rpc<{ proposer: string; start: string; end: string; signers: string[]; totalPower: string } | null>(
        net.node(1).url,
        'validators_getCheckpointProposal',
      ),
      { timeoutMs: CHECKPOINT_WAIT_MS, intervalMs: 200, what: 'a proposal being voted on validator 1' },
    )
    expect(net.validators).toContain(proposal.proposer)
    expect(BigInt(proposal.end)).toBeGreaterThanOrEqual(BigInt(proposal.start))
    for (const s of proposal.signers) expect(net.validators).toContain(s)
    expect([0n, ...(await all()).map((c) => BigInt(c.end))]).toContain(BigInt(proposal.start) - 1n)
    const ofBlock = await rpc<CheckpointJson>(fullUrl, 'validators_getCheckpointOfBlock', [list[1]?.start])
    expect(ofBlock.id).toBe(list[1]?.id)
    for (const v of net.validators) expect((await uptimeOf(v)).uptime).toBe(1)
    const status = execFileSync(process.execPath, [IBEX_BIN, 'checkpoint', 'status', '--config', net.node(FULL_NODE).config], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
    expect(status).toMatch(/CheckpointManager 0x[0-9a-f]{40} on http:\/\/127\.0\.0\.1:\d+: \d+ checkpoints, 4 signers/)
    expect(status).toMatch(/blocks not checkpointed yet/)
    for (const v of net.validators) expect(status).toMatch(new RegExp(`${v} .*100\\.0%  healthy`))
  }, 180_000)

  it("the full node's explorer shows the committed checkpoints, their signers and base-chain transactions, and uptime", async () => {
    const explorer = `${fullUrl}/explorer/`
    const browser = await launchBrowser(() => [new URL(fullUrl).origin])
    try {
      const { page } = browser
      // the list, newest first: each row as validators_getCheckpoint answers for its id
      const before = await count()
      const listed = await openPage(page, explorer, '#/checkpoints')
      const after = await count()
      const total = Number(listed.match(/Checkpoints \((\d+)\)/)?.[1])
      expect(total).toBeGreaterThanOrEqual(Math.max(before, 3))
      expect(total).toBeLessThanOrEqual(after)
      const list = await readTable(page, 'main table.list')
      expect(list?.head).toEqual(['id', 'blocks', 'proposer', 'signers', 'root', 'base-chain tx'])
      const rows = list?.rows ?? []
      const newestFirst = Array.from({ length: Math.min(total, EXPLORER_LIST_PAGE) }, (_, i) => `#/checkpoint/${(total - i) * 10_000}`)
      expect(rows.map((r) => r.links[0])).toEqual(newestFirst)
      for (const [i, row] of rows.entries()) {
        const c = await checkpointAt(total - i)
        expect(row.links.slice(1), `row of checkpoint ${BigInt(c.id)}`).toEqual([
          `#/block/${BigInt(c.start)}`,
          `#/block/${BigInt(c.end)}`,
          `#/address/${c.proposer}`,
        ])
        expect(row.cells.slice(3)).toEqual([String(c.signers.length), short(c.root), c.baseTxHash === null ? '—' : short(c.baseTxHash)])
      }

      // search by id finds a checkpoint the first step saw signed by all four; its page shows it whole
      const second = await checkpointAt(2)
      expect(second.signers).toHaveLength(4)
      expect(second.baseTxHash).toMatch(/^0x[0-9a-f]{64}$/)
      const detail = await searchFor(page, 'checkpoint 20000', '/checkpoint/20000')
      expect(detail).toContain('Checkpoint #20000')
      const kv = await readTable(page, 'main table.kv')
      const [start, end] = [BigInt(second.start), BigInt(second.end)]
      expect(kvRow(kv, 'blocks').links).toEqual([`#/block/${start}`, `#/block/${end}`])
      expect(kvRow(kv, 'blocks').cells[1]).toBe(`#${start} – #${end} (${end - start + 1n} blocks)`)
      expect(kvRow(kv, 'root').cells[1]).toBe(second.root)
      expect(kvRow(kv, 'proposer').links).toEqual([`#/address/${second.proposer}`])
      expect(kvRow(kv, 'base-chain transaction').cells[1]).toBe(second.baseTxHash)
      expect(detail).toContain('Signers (4)')
      const signers = (await readTable(page, 'main section table.list'))?.rows ?? []
      expect(signers.map((r) => r.cells[0])).toEqual(second.signers)
      expect(signers.map((r) => r.links[0])).toEqual(second.signers.map((s) => `#/address/${s}`))
      expect([...second.signers].sort()).toEqual([...net.validators].sort())
      // the transaction shown is the one that stored it in the CheckpointManager on the base chain
      const manager = readFileSync(net.node(FULL_NODE).config, 'utf8').match(/^manager = "(0x[0-9a-f]{40})"/m)?.[1]
      const stored = await rpc<{ status: string; to: string }>(anvil.url, 'eth_getTransactionReceipt', [second.baseTxHash])
      expect(stored.status).toBe('0x1')
      expect(stored.to).toBe(manager)

      // a block of its range names it
      await openPage(page, explorer, `#/block/${start}`)
      expect(kvRow(await readTable(page, 'main table.kv'), 'checkpoint').links).toEqual(['#/checkpoint/20000'])

      // uptime and health of each validator as validators_getUptime answers (read again until no checkpoint landed meanwhile)
      const seen = await waitFor(
        async () => {
          const asked = await rpc<UptimeJson & { checkpoints: number; median: number; benchmark: number }>(fullUrl, 'validators_getUptime')
          await openPage(page, explorer, '#/validators')
          const table = await readTable(page, 'main table.list')
          const note = await page.locator('main p.note').last().innerText()
          const again = await rpc<UptimeJson>(fullUrl, 'validators_getUptime')
          return JSON.stringify(again) === JSON.stringify(asked) ? { uptime: asked, table, note } : undefined
        },
        { timeoutMs: CHECKPOINT_WAIT_MS, intervalMs: 500, what: 'the validators page between two checkpoints' },
      )
      const head = seen.table?.head ?? []
      expect(head).toEqual(expect.arrayContaining(['signer', 'uptime', 'health']))
      const [signerAt, uptimeAt, healthAt] = [head.indexOf('signer'), head.indexOf('uptime'), head.indexOf('health')]
      const shown = seen.table?.rows ?? []
      expect(shown).toHaveLength(4)
      expect(seen.uptime.validators).toHaveLength(4)
      for (const u of seen.uptime.validators) {
        const row = shown.find((r) => r.links.includes(`#/address/${u.signer}`) && r.cells[signerAt] === short(u.signer))
        expect(row, `row of ${u.signer}`).toBeDefined()
        expect(u.of).toBeGreaterThanOrEqual(3)
        expect(row?.cells[uptimeAt]).toBe(`${(u.uptime * 100).toFixed(2)} % (${u.signed}/${u.of})`)
        expect(row?.cells[healthAt]).toBe(u.health)
      }
      expect(seen.note).toBe(
        `Uptime over the last ${seen.uptime.checkpoints} checkpoints; median ${seen.uptime.median}, benchmark ${seen.uptime.benchmark}.`,
      )

      // from the list to a checkpoint by its link: the newest listed, as the node answers it
      await openPage(page, explorer, '#/checkpoints')
      const newest = (await readTable(page, 'main table.list'))?.rows[0]?.links[0] as string
      await page.locator(`main table.list a[href="${newest}"]`).first().click()
      await waitForRoute(page, newest.slice(1), `the link ${newest}`)
      const clicked = await rpc<CheckpointJson>(fullUrl, 'validators_getCheckpoint', [`0x${BigInt(newest.split('/')[2] as string).toString(16)}`])
      expect(await page.locator('main h2').first().innerText()).toBe(`Signers (${clicked.signers.length})`)
      expect(((await readTable(page, 'main section table.list'))?.rows ?? []).map((r) => r.cells[0])).toEqual(clicked.signers)

      expect(browser.errors).toEqual([])
      expect(browser.foreign).toEqual([])
    } finally {
      await browser.close()
    }
  }, 240_000)

  it("carries a change of the DAO's validator set to the contract in the next checkpoint", async () => {
    const chain = new Chain(fullUrl)
    const key = `0x${readFileSync(join(net.dir, 'validator-0.key'), 'utf8').trim().replace(/^0x/, '')}`
    const holder = chain.signer(key)
    const funder = chain.signer(FUNDER.privateKey)
    await chain.receipt(await chain.sendTx(funder, { to: holder.address, value: TOP_UP + 10n * COIN, gas: 21_000n }))
    const signers = chain.contract('ValidatorSigners', DAO_ADDRESSES.ValidatorSigners)
    const seat = (await signers.read('seatOf', [holder.address])) as bigint
    const dao = chain.contract('ValidatorDAO', DAO_ADDRESSES.ValidatorDAO)
    const stake = (await dao.read('stakeOf', [seat])) as bigint
    const receipt = await dao.write(holder, 'topUp', [seat], { value: TOP_UP })
    const toppedAt = BigInt(receipt.blockNumber)
    const manager = readFileSync(net.node(FULL_NODE).config, 'utf8').match(/^manager = "(0x[0-9a-f]{40})"/m)?.[1] as string
    const powerOf = async (address: string) =>
      BigInt(
        await rpc<string>(anvil.url, 'eth_call', [
          { to: manager, data: `0x${POWER_OF_SELECTOR}${address.slice(2).padStart(64, '0')}` },
          'latest',
        ]),
      )
    expect(await powerOf(holder.address.toLowerCase())).toBe(stake)
    // the first checkpoint reaching the top-up's block carries the new set
    await waitFor(
      async () => {
        const last = await checkpointAt(await count())
        return BigInt(last.end) >= toppedAt ? last : undefined
      },
      { timeoutMs: CHECKPOINT_WAIT_MS, intervalMs: 500, what: 'a checkpoint past the top-up' },
    )
    expect(await powerOf(holder.address.toLowerCase())).toBe(stake + TOP_UP)
    for (const v of net.validators.filter((x) => x !== holder.address.toLowerCase())) expect(await powerOf(v)).toBe(stake)
    // and checkpoints go on under the new set, still signed by all four
    const after = await count()
    await untilCount(after + 1, 'a checkpoint under the new set')
    expect((await checkpointAt(after + 1)).signers).toHaveLength(4)
    expectConsecutive(await all())
  }, 240_000)

  it('goes on with 3 signers while a validator is down; its uptime falls, then rises when it is back', async () => {
    const down = net.node(4).validator as string
    await net.stop(4)
    const before = await count()
    // a checkpoint proposed before the stop may still carry its signature: wait for two more
    const reached = await untilCount(before + 2, 'checkpoints without validator 4')
    const last = await checkpointAt(reached)
    expect(last.signers).toHaveLength(3)
    expect(last.signers).not.toContain(down)
    const low = await uptimeOf(down)
    expect(low.uptime).toBeLessThan(1)
    // below 95% of the median (the others' 100%): Polygon's first step
    expect(low.health).toBe('grace period')
    expect(low.of - low.signed).toBeGreaterThanOrEqual(1)

    await restart(4)
    const back = await waitFor(
      async () => {
        const c = await checkpointAt(await count())
        return c.signers.includes(down) ? c : undefined
      },
      { timeoutMs: CHECKPOINT_WAIT_MS, intervalMs: 500, what: 'a checkpoint signed by validator 4 again' },
    )
    expect(back.signers).toHaveLength(4)
    // from here every checkpoint it signs raises its uptime again
    const returned = await uptimeOf(down)
    expect(returned.signed).toBeGreaterThan(low.signed)
    const later = await waitFor(
      async () => {
        const u = await uptimeOf(down)
        return u.uptime > returned.uptime ? u : undefined
      },
      { timeoutMs: CHECKPOINT_WAIT_MS, intervalMs: 500, what: "validator 4's uptime to rise" },
    )
    expect(later.signed).toBeGreaterThan(returned.signed)
    expectConsecutive(await all())
  }, 300_000)

  it('makes no checkpoint while two of four are down, and resumes when they return', async () => {
    await net.stop(3)
    await net.stop(4)
    // a submission already on its way may land: let it, then count
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const frozen = await count()
    await new Promise((r) => setTimeout(r, OUTAGE_MS))
    expect(await count()).toBe(frozen)
    const headDown = await head()
    const back = Date.now()
    await Promise.all([restart(3), restart(4)])
    // the chain itself goes on: blocks again (a checkpoint alone may cover blocks from before the outage)
    await waitFor(async () => ((await head()) > headDown ? true : undefined), {
      timeoutMs: CHECKPOINT_WAIT_MS,
      intervalMs: 250,
      what: 'a block after two validators returned',
    })
    console.log(`blocks resumed ${Date.now() - back} ms after the restarts began (head was ${headDown})`)
    await untilCount(frozen + 1, 'checkpoints after two validators returned')
    const list = await all()
    expectConsecutive(list)
    for (const c of list) expect(c.signers.length, `checkpoint ${c.id}`).toBeGreaterThanOrEqual(3)
  }, 300_000)

  it('resumes with no gap and no duplicate after the base chain was frozen', async () => {
    const before = await count()
    // the chain is live before the freeze (the test before may have left it in a late round)
    const live = await head()
    await waitFor(async () => ((await head()) > live ? true : undefined), {
      timeoutMs: CHECKPOINT_WAIT_MS,
      intervalMs: 250,
      what: 'a block before the base chain is frozen',
    })
    const headBefore = await head()
    process.kill(anvil.pid, 'SIGSTOP')
    let headFrozen: bigint
    try {
      await new Promise((r) => setTimeout(r, FREEZE_MS))
      headFrozen = await head()
    } finally {
      process.kill(anvil.pid, 'SIGCONT')
    }
    // the chain went on while its base chain answered nothing (no rate asserted: a loaded box is slower)
    expect(headFrozen).toBeGreaterThan(headBefore)
    await untilCount(before + 2, 'checkpoints after anvil thawed')
    const list = await all()
    expectConsecutive(list)
    for (const c of list.slice(before)) {
      expect(c.root).toBe(await rootFromRpc(fullUrl, BigInt(c.start), BigInt(c.end)))
      expect(c.signers.length).toBeGreaterThanOrEqual(3)
    }
    // every node serves the same checkpoints
    const latest = list.at(-1) as CheckpointJson
    for (const n of net.nodes)
      expect((await rpc<CheckpointJson>(n.url, 'validators_getCheckpoint', [latest.id])).root).toBe(latest.root)
  }, 300_000)

  it("exits a burn on the child chain once on the base chain, with the node's payload", async () => {
    const address = (name: string) => (deployOutput.match(new RegExp(`${name} TT +(0x[0-9a-f]{40})`))?.[1] ?? '') as Hex
    const [baseToken, childToken] = [address('BaseToken'), address('ChildToken')]
    const vault = readFileSync(net.node(FULL_NODE).config, 'utf8').match(/^vault = "(0x[0-9a-f]{40})"/m)?.[1] as Hex
    expect([baseToken, childToken, vault].every((a) => /^0x[0-9a-f]{40}$/.test(a))).toBe(true)
    const balance = async (url: string, token: Hex, owner: string) =>
      BigInt(
        await rpc<string>(url, 'eth_call', [
          { to: token, data: encodeFunctionData({ abi: TOKEN_ABI, functionName: 'balanceOf', args: [owner as Hex] }) },
          'latest',
        ]),
      )
    expect(await balance(anvil.url, baseToken, vault)).toBe(TOKEN_SUPPLY)
    expect(await balance(fullUrl, childToken, FUNDER.address)).toBe(TOKEN_SUPPLY)
    // burn on the child chain
    const chain = new Chain(fullUrl)
    const holder = chain.signer(FUNDER.privateKey)
    const data = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'withdraw', args: [BURNED] })
    const burn = await chain.receipt(await chain.sendTx(holder, { to: childToken, data, gas: 200_000n }))
    const logIndex = (burn.logs as { logIndex: string }[])[0]?.logIndex as string
    // once a checkpoint holds its block, the node builds the payload and the vault pays it, once
    await waitFor(() => rpc(fullUrl, 'validators_getCheckpointOfBlock', [burn.blockNumber]), {
      timeoutMs: CHECKPOINT_WAIT_MS,
      intervalMs: 500,
      what: 'a checkpoint holding the burn',
    })
    const { payload } = await rpc<{ payload: Hex }>(fullUrl, 'validators_getExitPayload', [burn.transactionHash, logIndex])
    const exit = encodeFunctionData({ abi: TOKEN_ABI, functionName: 'exit', args: [payload] })
    const tx = await rpc<string>(anvil.url, 'eth_sendTransaction', [{ from: EXITER, to: vault, data: exit }])
    const receipt = await waitFor(() => rpc<{ status: string } | null>(anvil.url, 'eth_getTransactionReceipt', [tx]), {
      timeoutMs: 30_000,
      what: 'the exit',
    })
    expect(receipt.status).toBe('0x1')
    expect(await balance(anvil.url, baseToken, FUNDER.address)).toBe(BURNED)
    expect(await balance(anvil.url, baseToken, vault)).toBe(TOKEN_SUPPLY - BURNED)
    // the same exit again: refused (ExitAlreadyProcessed), nothing paid
    await expect(rpc(anvil.url, 'eth_call', [{ from: EXITER, to: vault, data: exit }, 'latest'])).rejects.toThrow()
    const again = await rpc<string>(anvil.url, 'eth_sendTransaction', [{ from: EXITER, to: vault, data: exit, gas: '0x100000' }])
    const refused = await waitFor(() => rpc<{ status: string } | null>(anvil.url, 'eth_getTransactionReceipt', [again]), {
      timeoutMs: 30_000,
      what: 'the second exit',
    })
    expect(refused.status).toBe('0x0')
    expect(await balance(anvil.url, baseToken, FUNDER.address)).toBe(BURNED)
  }, 180_000)

  it('reports the time from a block to its checkpoint', async () => {
    const list = await all()
    const firstBlocks: number[] = []
    const lastBlocks: number[] = []
    for (const c of list) {
      if (c.baseTxHash === null) continue
      const receipt = await rpc<{ blockNumber: string }>(anvil.url, 'eth_getTransactionReceipt', [c.baseTxHash])
      const baseBlock = await rpc<{ timestamp: string }>(anvil.url, 'eth_getBlockByNumber', [receipt.blockNumber, false])
      const at = Number(BigInt(baseBlock.timestamp))
      const time = async (n: string) =>
        Number(BigInt((await rpc<{ timestamp: string }>(fullUrl, 'eth_getBlockByNumber', [n, false])).timestamp))
      firstBlocks.push(at - (await time(c.start)))
      lastBlocks.push(at - (await time(c.end)))
    }
    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b)
      return `min ${s[0]} s, median ${s[Math.floor(s.length / 2)]} s, max ${s.at(-1)} s`
    }
    console.log(
      `block → checkpoint over ${list.length} checkpoints (4 s interval, 1 s blocks): first block of a range ${stats(firstBlocks)}; last block ${stats(lastBlocks)}`,
    )
    expect(firstBlocks.length).toBeGreaterThan(0)
  }, 120_000)
})
