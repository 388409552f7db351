/**
 * The built-in explorer in a real headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core) against a dev node with real activity: plain transfers, a contract deploy, an
 * ERC-20 transfer, a transfer that reverts with a reason, a payment that reaches an address only
 * through an internal call, and DAO actions (a KYC attestation, a Tier III seat application and its
 * approval). Each page must render that data, search must find each kind of thing, bad input must
 * give a clear message, and over the whole run the page must log no console error and make no
 * request to any origin but the node's. A second node without the validator layer (and the
 * explorer at another path) shows the "not configured" pages.
 *
 * IBEX_SCREENSHOTS=1 writes PNGs of the main pages to docs/explorer/ (committed, shown in the README).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { encodeDeployData, encodeFunctionData, type Hex, keccak256, parseEther, parseGwei, toFunctionSelector, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devWallet } from '../../scripts/dao/plan.js'
import { compileFile, REPO_ROOT } from '../helpers/compile.js'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from '../helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, startNode, waitForReceipt } from '../helpers/node.js'
import { type Browser, launchBrowser, openPage, PAGE_TIMEOUT_MS } from './browser.js'

/** The page's globals, as the functions run inside the browser see them (the test project has no DOM lib). */
declare const document: {
  getElementById(id: string): { dataset: Record<string, string | undefined>; textContent: string | null } | null
  querySelector(selector: string): { textContent: string | null } | null
}

const SCREENSHOT_DIR = join(REPO_ROOT, 'docs', 'explorer')
const SCREENSHOTS = process.env.IBEX_SCREENSHOTS === '1'
const KYC_REGISTRY = '0x0000000000000000000000000000000000da0001' as Hex
const VALIDATOR_DAO = '0x0000000000000000000000000000000000da0003' as Hex
const VALIDATOR_SIGNERS = '0x0000000000000000000000000000000000da0014' as Hex
const DAO_GOVERNOR = '0x0000000000000000000000000000000000da0004' as Hex
const DAO_LENS = '0x0000000000000000000000000000000000da0008' as Hex
const REVENUE_POOL = '0x0000000000000000000000000000000000da0006' as Hex
const PROPOSAL_DESCRIPTION = 'Explorer test: read the DAO overview'
/** Longer than the dev preset's governance waits (the Governor's clock is the block timestamp; votingDelay 1 s). */
const GOVERNANCE_WAIT_SECONDS = 3
const TIER_III = 3
/** The dev preset's Tier III minimum stake (contracts/genesis/dev.json params.minStake[2]). */
const TIER_III_STAKE = 222_222n * 10n ** 18n
const SUPPLY = 1_000_000n * 10n ** 18n
/** Logs of one transaction: more than the page draws (app.js MAX_ROWS_DRAWN, 500). */
const MANY_LOGS = 520

let node: IbexNode
let bare: IbexNode
let browser: Browser
let page: Page
let origin: string

const token = compileFile('../test/explorer/ExplorerToken.sol').ExplorerToken
const kycAbi = [
  {
    type: 'function',
    name: 'attest',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'account', type: 'address' },
      { name: 'identity', type: 'bytes32' },
      { name: 'category', type: 'uint8' },
      { name: 'expiresAt', type: 'uint64' },
      { name: 'evidenceHash', type: 'bytes32' },
    ],
    outputs: [],
  },
] as const
const daoAbi = [
  { type: 'function', name: 'disclaimerHash', stateMutability: 'view', inputs: [], outputs: [{ type: 'bytes32' }] },
  { type: 'function', name: 'riskWarningHash', stateMutability: 'view', inputs: [], outputs: [{ type: 'bytes32' }] },
  { type: 'function', name: 'informationMemorandumHash', stateMutability: 'view', inputs: [], outputs: [{ type: 'bytes32' }] },
  {
    type: 'function',
    name: 'applyForSeat',
    stateMutability: 'payable',
    inputs: [
      { name: 'tier', type: 'uint8' },
      { name: 'disclaimer', type: 'bytes32' },
      { name: 'riskWarning', type: 'bytes32' },
      { name: 'informationMemorandum', type: 'bytes32' },
      { name: 'applicationForm', type: 'bytes32' },
    ],
    outputs: [],
  },
  { type: 'function', name: 'approveApplication', stateMutability: 'nonpayable', inputs: [{ name: 'id', type: 'uint256' }], outputs: [] },
] as const
const governorAbi = [
  {
    type: 'function',
    name: 'propose',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'targets', type: 'address[]' },
      { name: 'values', type: 'uint256[]' },
      { name: 'calldatas', type: 'bytes[]' },
      { name: 'description', type: 'string' },
    ],
    outputs: [{ type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'castVote',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'proposalId', type: 'uint256' },
      { name: 'support', type: 'uint8' },
    ],
    outputs: [{ type: 'uint256' }],
  },
] as const
const poolAbi = [
  { type: 'function', name: 'finalize', stateMutability: 'nonpayable', inputs: [{ name: 'epoch', type: 'uint256' }], outputs: [] },
] as const
const signersAbi = [
  {
    type: 'function',
    name: 'setSigner',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'seat', type: 'uint256' },
      { name: 'signer', type: 'address' },
    ],
    outputs: [],
  },
] as const

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any

/** What the activity left, for the assertions. */
const made = {} as {
  transfer: Json
  deploy: Json
  tokenAddress: Hex
  erc20: Json
  revert: Json
  forward: Json
  attest: Json
  apply: Json
  approve: Json
  seat: number
  manyLogs: Json
  propose: Json
  proposalId: bigint
  vote: Json
}
const target = `0x${'7e'.repeat(20)}` as Hex
const applicant = privateKeyToAccount(devWallet(10).privateKey as Hex)
const signer = privateKeyToAccount(devWallet(11).privateKey as Hex).address

const nonces = new Map<string, number>()
async function send(key: Hex, to: Hex | null, data: Hex, value = 0n, gas = 300_000n): Promise<Json> {
  const account = privateKeyToAccount(key)
  const nonce = nonces.get(account.address) ?? Number(await rpc(node.url, 'eth_getTransactionCount', [account.address, 'pending']))
  nonces.set(account.address, nonce + 1)
  const raw = await account.signTransaction({
    chainId: DEV_CHAIN_ID,
    type: 'eip1559',
    to,
    data,
    value,
    gas,
    nonce,
    maxFeePerGas: parseGwei('50'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
  const hash = await rpc(node.url, 'eth_sendRawTransaction', [raw])
  return waitForReceipt(node.url, hash, 30_000)
}

/** Moves the dev chain's clock on and seals a block (blocks sealed back to back run ahead of the wall clock). */
async function advanceChainClock(): Promise<void> {
  await rpc(node.url, 'evm_increaseTime', [GOVERNANCE_WAIT_SECONDS])
  await rpc(node.url, 'evm_mine', [])
}

const key = (i: number) => DEV_ACCOUNTS[i].privateKey as Hex

async function readDao(name: 'disclaimerHash' | 'riskWarningHash' | 'informationMemorandumHash'): Promise<Hex> {
  return rpc(node.url, 'eth_call', [{ to: VALIDATOR_DAO, data: encodeFunctionData({ abi: daoAbi, functionName: name }) }, 'latest'])
}

beforeAll(async () => {
  node = await startNode({ port: 'free', args: ['--http.api', 'eth,net,web3,txpool,ots,bor,validators,evm'] })
  origin = new URL(node.url).origin
  made.transfer = await send(key(0), DEV_ACCOUNTS[5].address, '0x', parseEther('1.5'))
  await send(key(1), DEV_ACCOUNTS[6].address, '0x', parseEther('0.25'))
  made.deploy = await send(key(0), null, encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: [SUPPLY] }), 0n, 1_500_000n)
  made.tokenAddress = made.deploy.contractAddress
  const tokenCall = (functionName: string, args: unknown[]) => encodeFunctionData({ abi: token.abi, functionName, args })
  made.erc20 = await send(key(0), made.tokenAddress, tokenCall('transfer', [DEV_ACCOUNTS[3].address, 1234n * 10n ** 18n]))
  made.revert = await send(key(4), made.tokenAddress, tokenCall('transfer', [DEV_ACCOUNTS[3].address, 1n]))
  made.forward = await send(key(2), made.tokenAddress, tokenCall('forward', [target]), 7n)
  made.manyLogs = await send(key(6), made.tokenAddress, tokenCall('approveMany', [BigInt(MANY_LOGS)]), 0n, 25_000_000n)
  // DAO: dev 1 (a KYC attestor) attests the applicant, who applies for a Tier III seat; dev 2 (membership) approves
  const now = Math.floor(Date.now() / 1000)
  made.attest = await send(
    key(1),
    KYC_REGISTRY,
    encodeFunctionData({
      abi: kycAbi,
      functionName: 'attest',
      args: [applicant.address, keccak256(toHex(`explorer test identity ${applicant.address}`)), 1, BigInt(now + 365 * 86_400), keccak256(toHex('evidence'))],
    }),
  )
  const docs = [await readDao('disclaimerHash'), await readDao('riskWarningHash'), await readDao('informationMemorandumHash')] as const
  made.apply = await send(
    devWallet(10).privateKey as Hex,
    VALIDATOR_DAO,
    encodeFunctionData({ abi: daoAbi, functionName: 'applyForSeat', args: [TIER_III, ...docs, keccak256(toHex('form'))] }),
    TIER_III_STAKE,
    1_000_000n,
  )
  const submitted = made.apply.logs.find((l: Json) => l.address.toLowerCase() === VALIDATOR_DAO && l.topics.length > 1)
  made.approve = await send(key(2), VALIDATOR_DAO, encodeFunctionData({ abi: daoAbi, functionName: 'approveApplication', args: [BigInt(submitted.topics[1])] }), 0n, 1_000_000n)
  for (const r of [made.transfer, made.deploy, made.erc20, made.forward, made.manyLogs, made.attest, made.apply, made.approve]) {
    if (r.status !== '0x1') throw new Error(`set-up transaction ${r.transactionHash} failed`)
  }
  if (made.revert.status !== '0x0') throw new Error('the transfer meant to revert succeeded')
  const approved = made.approve.logs.find((l: Json) => l.address.toLowerCase() === VALIDATOR_DAO && l.topics.length === 4)
  made.seat = Number(BigInt(approved?.topics[3] ?? 0))
  // the holder names its validator key: the seat joins the validator set
  const named = await send(devWallet(10).privateKey as Hex, VALIDATOR_SIGNERS, encodeFunctionData({ abi: signersAbi, functionName: 'setSigner', args: [BigInt(made.seat), signer] }))
  if (named.status !== '0x1') throw new Error(`ValidatorSigners.setSigner failed: ${named.transactionHash}`)
  // governance: the new holder (1 vote, Tier III) proposes a harmless call and votes for it
  const holder = devWallet(10).privateKey as Hex
  await advanceChainClock()
  const overviewCall = toFunctionSelector('overview()')
  made.propose = await send(holder, DAO_GOVERNOR, encodeFunctionData({ abi: governorAbi, functionName: 'propose', args: [[DAO_LENS], [0n], [overviewCall], PROPOSAL_DESCRIPTION] }), 0n, 1_000_000n)
  if (made.propose.status !== '0x1') throw new Error(`propose failed: ${made.propose.transactionHash}`)
  const createdLog = made.propose.logs.find((l: Json) => l.address.toLowerCase() === DAO_GOVERNOR)
  made.proposalId = BigInt(createdLog.data.slice(0, 66))
  await advanceChainClock()
  made.vote = await send(holder, DAO_GOVERNOR, encodeFunctionData({ abi: governorAbi, functionName: 'castVote', args: [made.proposalId, 1] }), 0n, 1_000_000n)
  if (made.vote.status !== '0x1') throw new Error(`castVote failed: ${made.vote.transactionHash}`)

  bare = await startNode({ port: 'free', args: ['--explorer.path', '/scan/'] })

  browser = await launchBrowser(() => [origin, new URL(bare.url).origin])
  page = browser.page
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await cleanupNodes()
})

/** Opens `hash` of the explorer (on `node` unless `base` says) and waits for the route `expected`. */
function open(hash: string, expected = hash, base = `${node.url}/explorer/`): Promise<string> {
  return openPage(page, base, hash, expected)
}

async function shot(name: string): Promise<void> {
  if (!SCREENSHOTS) return
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true })
}

const lower = (s: string) => s.toLowerCase()

describe('the explorer in Chromium', () => {
  it('is served with a strict Content-Security-Policy and nosniff', async () => {
    const response = await page.goto(`${node.url}/explorer/`)
    const headers = response?.headers() ?? {}
    expect(headers['content-security-policy']).toContain("default-src 'self'")
    expect(headers['content-security-policy']).toContain("script-src 'self'")
    expect(headers['x-content-type-options']).toBe('nosniff')
  })

  it('home: the latest blocks and transactions, updated as blocks come', async () => {
    const text = await open('#/', '/')
    const head = Number(await rpc(node.url, 'eth_blockNumber'))
    expect(text).toContain('Latest blocks')
    expect(text).toContain(`#${head}`)
    expect(text).toContain(made.approve.transactionHash.slice(0, 10))
    expect(text).toContain('approveApplication')
    await shot('home')
    // a new block shows up without a reload (polling)
    await send(key(7), DEV_ACCOUNTS[8].address, '0x', 1n)
    await page.waitForFunction((n) => document.querySelector('main')?.textContent?.includes(`#${n}`), head + 1, { timeout: PAGE_TIMEOUT_MS })
  })

  it('block: header, IBFT round and seals, proposer, checkpoint status, its transactions', async () => {
    const n = Number(made.erc20.blockNumber)
    const text = await open(`#/block/${n}`)
    expect(text).toContain(`Block #${n}`)
    expect(text).toMatch(/IBFT round\s+0/)
    expect(text).toMatch(/committed seals\s+1 of 1 validators/)
    const author = await rpc(node.url, 'bor_getAuthor', [toHex(n)])
    expect(lower(text)).toContain(lower(author))
    expect(text).toContain('no checkpoint service is configured on this node')
    expect(text).toContain(made.erc20.transactionHash.slice(0, 10))
    expect(text).toContain('transfer')
    await shot('block')
  })

  it('transaction: a transfer with value and fee', async () => {
    const text = await open(`#/tx/${made.transfer.transactionHash}`)
    expect(text).toContain('success')
    expect(text).toMatch(/value\s+1\.5 [A-Z]+/)
    expect(lower(text)).toContain(lower(DEV_ACCOUNTS[5].address))
    const fee = BigInt(made.transfer.gasUsed) * BigInt(made.transfer.effectiveGasPrice)
    expect(text).toContain(`${Number(made.transfer.gasUsed).toLocaleString('en-US')} gas`)
    expect(text).toContain('next from sender ›')
    expect(text).not.toContain('previous from sender')
    expect(fee).toBeGreaterThan(0n)
  })

  it('transaction: an ERC-20 transfer, its input and log decoded and listed as a token transfer', async () => {
    const text = await open(`#/tx/${made.erc20.transactionHash}`)
    expect(text).toContain('transfer(address,uint256)')
    expect(text).toContain('Transfer(address,address,uint256)')
    expect(text).toContain('Token transfers')
    expect(text).toContain('ERC-20')
    expect(text).toContain((1234n * 10n ** 18n).toString())
    // dev 0's last transaction: its neighbour by nonce (ots_getTransactionBySenderAndNonce), no next one
    expect(text).toContain('‹ previous from sender')
    expect(text).not.toContain('next from sender ›')
    await shot('transaction')
    await page.getByText('‹ previous from sender').click()
    await page.waitForFunction((want) => document.getElementById('main')?.dataset.page === want, `/tx/${made.deploy.transactionHash}`, { timeout: PAGE_TIMEOUT_MS })
  })

  it('transaction: a revert shows its reason', async () => {
    const text = await open(`#/tx/${made.revert.transactionHash}`)
    expect(text).toContain('failed')
    expect(text).toContain('reverted: ExplorerToken: balance too low')
  })

  it('transaction: a contract creation and an internal call', async () => {
    const created = await open(`#/tx/${made.deploy.transactionHash}`)
    expect(created).toContain('contract creation')
    expect(lower(created)).toContain(lower(made.tokenAddress))
    const text = await open(`#/tx/${made.forward.transactionHash}`)
    // a contract the explorer has no ABI for: its selector, raw
    expect(text).toContain(`Unknown function ${toFunctionSelector('forward(address)')}`)
    expect(text).toContain('Internal operations')
    expect(lower(text)).toMatch(new RegExp(`transfer\\s+0x[0-9a-f…]+\\s+${target.slice(0, 10)}…[0-9a-f]+\\s+7 wei`))
    expect(text).toContain('Call trace')
  })

  it('transaction: a transaction with more logs than the page draws says how many are left out', async () => {
    const text = await open(`#/tx/${made.manyLogs.transactionHash}`)
    expect(text).toContain(`Logs (${MANY_LOGS})`)
    expect(text).toContain(`… and ${MANY_LOGS - 500} more not drawn.`)
    expect(await page.locator('ol.logs > li').count()).toBe(500)
  })

  it('transaction: DAO actions decoded with the DAO’s ABIs and labels', async () => {
    const attest = await open(`#/tx/${made.attest.transactionHash}`)
    expect(attest).toContain('attest(address,bytes32,uint8,uint64,bytes32)')
    expect(attest).toContain('KycRegistry')
    const approve = await open(`#/tx/${made.approve.transactionHash}`)
    expect(approve).toContain('approveApplication(uint256)')
    expect(approve).toContain('ApplicationApproved')
    expect(approve).toContain('ValidatorDAO')
  })

  it('address: balance, nonce, and a history that includes internal calls, paged', async () => {
    const text = await open(`#/address/${target}`)
    expect(text).toContain('Address')
    expect(text).toMatch(/balance\s+7 wei/)
    expect(text).toContain(made.forward.transactionHash.slice(0, 10))
    expect(text).toContain('internal')
    const contract = await open(`#/address/${made.tokenAddress.toLowerCase()}`)
    expect(contract).toContain('Contract')
    expect(contract).toContain(made.deploy.transactionHash.slice(0, 10))
    expect(lower(contract)).toContain(lower(DEV_ACCOUNTS[0].address))
    // an ERC-20 contract: its metadata, and the transfers of the history page
    expect(contract).toMatch(/name\s+Explorer Token/)
    expect(contract).toMatch(/symbol\s+EXT/)
    expect(contract).toMatch(/decimals\s+18/)
    expect(contract).toContain('Token transfers in these transactions')
    expect(contract).toContain((1234n * 10n ** 18n).toString())
    // dev 0 sent several transactions: one per page, then older
    const sender = lower(DEV_ACCOUNTS[0].address)
    const first = await open(`#/address/${sender}?size=1`)
    expect(first).toContain('older ›')
    await page.getByText('older ›').click()
    await page.waitForFunction(() => (document.getElementById('main')?.dataset.page ?? '').includes('before='), undefined, { timeout: PAGE_TIMEOUT_MS })
    const older = await page.locator('main').innerText()
    expect(older).toContain('‹ newer')
    await open(`#/address/${sender}`)
    await shot('address')
  })

  it('address: a DAO contract offers its read-only functions, called with eth_call', async () => {
    const text = await open(`#/address/${DAO_LENS}`)
    expect(text).toContain('Read DaoLens')
    const row = page.locator('ul.reads li').filter({ hasText: 'seat(uint256)' })
    await row.locator('input').fill(String(made.seat))
    await row.locator('button').click()
    await expect.poll(async () => lower(await row.innerText()), { timeout: PAGE_TIMEOUT_MS }).toContain(lower(applicant.address))
    await row.locator('input').fill('abc')
    await row.locator('button').click()
    await expect.poll(async () => row.innerText(), { timeout: PAGE_TIMEOUT_MS }).toContain('is not a non-negative integer')
  })

  it('validators: the DAO’s validator set, with the seat just approved', async () => {
    const text = await open('#/validators')
    expect(text).toContain('Validators (')
    expect(text).toContain(`#${made.seat}`)
    expect(lower(text)).toContain(lower(applicant.address).slice(0, 10))
    expect(lower(text)).toContain(lower(signer).slice(0, 10))
    expect(text).toContain('Tier III')
    expect(text).toContain('no checkpoint service')
    await shot('validators')
  })

  it('checkpoints: says plainly that this node has no checkpoint service', async () => {
    const text = await open('#/checkpoints')
    expect(text).toContain('no checkpoint service is configured on this node')
  })

  it('DAO: tiers and the seats held, by tier', async () => {
    const text = await open('#/dao')
    expect(text).toContain('Tiers')
    expect(text).toContain('Tier III seats')
    expect(text).toContain(`#${made.seat}`)
    expect(text).toContain('Proposals')
    expect(text).toContain(PROPOSAL_DESCRIPTION)
    expect(text).toMatch(/Active\s+1\s+0\s+0/)
    await shot('dao')
    const proposal = await open(`#/proposal/${made.proposalId}`)
    expect(proposal).toMatch(/state\s+Active/)
    expect(proposal).toContain(PROPOSAL_DESCRIPTION)
    expect(proposal).toMatch(/for \(votes\)\s+1 of 1 cast/)
    expect(proposal).toContain('overview()')
    expect(proposal).toContain('DaoLens')
    await shot('proposal')
    // revenue: epoch 0 (the fees of every block so far) is finalized by anyone; the page lists it
    expect(text).toContain('No epoch has ended yet: epoch 0 is collecting revenue.')
    expect(text).toContain('Disputes (0)')
    expect(text).toContain('No dispute has been filed.')
    const finalized = await send(key(3), REVENUE_POOL, encodeFunctionData({ abi: poolAbi, functionName: 'finalize', args: [0n] }), 0n, 3_000_000n)
    expect(finalized.status).toBe('0x1')
    const after = await open('#/dao')
    expect(after).not.toContain('No epoch has ended yet')
    expect(after).toMatch(/Revenue epochs\s+epoch\s+start\s+end\s+revenue[^\n]*\n0\s+1970-01-01/)
    const seat = await open(`#/seat/${made.seat}`)
    expect(seat).toContain(`Seat #${made.seat}`)
    expect(lower(seat)).toContain(lower(applicant.address))
  })

  it('search finds each kind', async () => {
    const search = async (q: string, expected: string) => {
      await page.evaluate(() => {
        const main = document.getElementById('main')
        if (main !== null) main.dataset.page = ''
      })
      await page.fill('#q', q)
      await page.press('#q', 'Enter')
      try {
        await page.waitForFunction((want) => document.getElementById('main')?.dataset.page === want, expected, { timeout: PAGE_TIMEOUT_MS })
      } catch (err) {
        throw new Error(`search "${q}" did not reach ${expected}: at ${page.url()}, showing ${await page.locator('main').innerText()}`, { cause: err })
      }
      return page.locator('main').innerText()
    }
    expect(await search(made.tokenAddress, `/address/${lower(made.tokenAddress)}`)).toContain('Contract')
    expect(await search(made.erc20.transactionHash, `/tx/${made.erc20.transactionHash}`)).toContain('transfer(address,uint256)')
    const blockHash = made.erc20.blockHash
    expect(await search(blockHash, `/block/${Number(made.erc20.blockNumber)}`)).toContain(`Block #${Number(made.erc20.blockNumber)}`)
    const n = Number(made.erc20.blockNumber)
    const numbered = await search(String(n), `/search/${n}`)
    expect(numbered).toContain(`Block #${n}`)
    expect(numbered).toContain(`Seat #${n}`)
    expect(await search(`block ${n}`, `/block/${n}`)).toContain(`Block #${n}`)
    expect(await search(`seat ${made.seat}`, `/seat/${made.seat}`)).toContain(`Seat #${made.seat}`)
    expect(await search('checkpoint 10000', '/checkpoint/10000')).toContain('no checkpoint service')
    expect(await search('proposal 12345', '/proposal/12345')).toContain('There is no proposal 12345')
    expect(await search(`proposal ${made.proposalId}`, `/proposal/${made.proposalId}`)).toContain(PROPOSAL_DESCRIPTION)
    expect(await search(String(made.proposalId), `/proposal/${made.proposalId}`)).toContain(PROPOSAL_DESCRIPTION)
    expect(await search('hello', `/search/hello`)).toContain('is not something the explorer can look up')
  })

  it('bad input on every page gives a clear message', async () => {
    const cases: [string, string][] = [
      ['#/tx/0x1234', 'is not a transaction hash'],
      [`#/tx/0x${'0'.repeat(64)}`, 'knows no transaction'],
      ['#/address/0xzz', 'is not an address'],
      [`#/address/${target}?before=abc`, 'is not a block number'],
      [`#/address/${target}?size=100000`, 'Page size "100000" is not allowed'],
      ['#/block/99999999', 'has no block 99999999'],
      [`#/block/0x${'ab'.repeat(32)}`, 'has no block'],
      ['#/block/latest', 'is not a block number'],
      [`#/block/${Number(made.erc20.blockNumber)}?page=50`, 'beyond the last'],
      [`#/block/${Number(made.erc20.blockNumber)}?page=-1`, 'is not a page number'],
      [`#/block/${Number(made.erc20.blockNumber)}?size=100000`, 'Page size "100000" is not allowed'],
      [`#/address/${target}?after=99999999`, 'No transactions on this side of that block'],
      ['#/checkpoint/abc', 'is not a checkpoint id'],
      ['#/seat/151', 'seats are numbered 1 to 150'],
      ['#/proposal/xyz', 'is not a proposal id'],
      ['#/nowhere', 'There is no page'],
    ]
    for (const [hash, message] of cases) {
      const text = await open(hash)
      expect(text, hash).toContain(message)
    }
    // the node still answers
    expect(await rpc(node.url, 'eth_chainId')).toBe(toHex(DEV_CHAIN_ID))
  })

  it('a node without the validator layer says so; the explorer sits at its configured path', async () => {
    const base = `${bare.url}/scan/`
    expect((await fetch(`${bare.url}/explorer/`)).status).toBe(404)
    const validators = await open('#/validators', '#/validators', base)
    expect(validators).toContain('This node has no validator layer configured')
    const checkpoints = await open('#/checkpoints', '#/checkpoints', base)
    expect(checkpoints).toContain('This node has no validator layer configured')
    const block = await open('#/block/0', '#/block/0', base)
    expect(block).toContain('bor_getAuthor not served by this node')
  })

  it('logged no console error and asked no other origin, on any page', () => {
    expect(browser.errors).toEqual([])
    expect(browser.foreign).toEqual([])
  })
})
