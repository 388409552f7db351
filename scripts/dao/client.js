/**
 * A small JSON-RPC client for the DAO scripts and tests: plain fetch, ethers v6 for signing and
 * ABI coding, custom errors decoded by name from every DAO ABI, and a way to move the dev chain's
 * clock (each block's timestamp is at least its parent's + 1, so a run of tiny transactions moves
 * time forward faster than the wall clock).
 *
 *   chain.contract('ValidatorDAO', address).write(signer, 'applyForSeat', [...], { value })
 *     ─▶ eth_estimateGas (a revert here throws DaoRevertError with the decoded custom error)
 *     ─▶ eth_sendRawTransaction (nonce tracked per signer) ─▶ receipt (status 0 throws)
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { getCreateAddress, Interface, Wallet } from 'ethers'

import { CHECKPOINT_DEPLOYABLE, CONTRACTS_DIR, DEPLOYABLE } from './solc.js'

/** RECEIPT_POLL_MS: the dev chain seals at once; receipts are polled this often. */
const RECEIPT_POLL_MS = 10
/** RECEIPT_TIMEOUT_MS: a transaction not mined by then is reported (a batch of 150 seat approvals takes a while on a busy box). */
const RECEIPT_TIMEOUT_MS = 120_000
/**
 * Headroom over eth_estimateGas. The estimate runs at the head block's timestamp; the transaction
 * lands one block later, where a timestamp-keyed checkpoint (votes, stake history) is appended to
 * a fresh slot instead of overwriting the head's: tens of thousands of gas more.
 */
const GAS_HEADROOM_PERCENT = 50n
const GAS_HEADROOM_FIXED = 100_000n
/** MAX_TX_GAS: stays below the 30M block gas limit. */
const MAX_TX_GAS = 29_000_000n
/** FALLBACK_GAS: used when eth_estimateGas times out (enough for finalizing 150 seats, ~7.2M). */
const FALLBACK_GAS = 15_000_000n
/** MAX_FEE_PER_GAS_WEI: generous cap; the block's base fee is what is paid. */
const MAX_FEE_PER_GAS_WEI = 100_000_000_000n
/** PRIORITY_FEE_WEI: the tip to the block producer. */
const PRIORITY_FEE_WEI = 1_000_000_000n

const artifactCache = new Map()

/** artifact(name): contracts/build/<name>.json (abi, bytecode, deployedBytecode). */
export function artifact(name) {
  let a = artifactCache.get(name)
  if (a === undefined) {
    a = JSON.parse(readFileSync(join(CONTRACTS_DIR, 'build', `${name}.json`), 'utf8'))
    artifactCache.set(name, a)
  }
  return a
}

let errorIface
/** errorInterface: every custom error of every published contract (DAO and checkpoint builds), for decoding revert data. */
export function errorInterface() {
  if (errorIface === undefined) {
    const seen = new Set()
    const fragments = []
    for (const name of [...Object.keys(DEPLOYABLE), ...Object.keys(CHECKPOINT_DEPLOYABLE)]) {
      for (const item of artifact(name).abi) {
        if (item.type !== 'error') continue
        const key = `${item.name}(${item.inputs.map((i) => i.type).join(',')})`
        if (seen.has(key)) continue
        seen.add(key)
        fragments.push(item)
      }
    }
    errorIface = new Interface(fragments)
  }
  return errorIface
}

/** DaoRevertError: a call or transaction reverted; `reason` is the custom error's name (or Error(string)). */
export class DaoRevertError extends Error {
  constructor(what, data, rpcMessage) {
    const decoded = decodeRevert(data)
    super(`${what} reverted: ${decoded ? `${decoded.name}(${decoded.args.join(', ')})` : (rpcMessage ?? 'no data')}`)
    this.name = 'DaoRevertError'
    this.reason = decoded?.name
    this.args = decoded?.args ?? []
    this.data = data
  }
}

/** decodeRevert turns revert data into { name, args } (custom error, Error(string) or Panic(uint256)). */
export function decodeRevert(data) {
  if (typeof data !== 'string' || data.length < 10) return undefined
  const selector = data.slice(0, 10)
  if (selector === '0x08c379a0') {
    const [message] = new Interface(['error Error(string)']).decodeErrorResult('Error', data)
    return { name: 'Error', args: [message] }
  }
  if (selector === '0x4e487b71') {
    const [code] = new Interface(['error Panic(uint256)']).decodeErrorResult('Panic', data)
    return { name: 'Panic', args: [code.toString()] }
  }
  try {
    const parsed = errorInterface().parseError(data)
    return parsed ? { name: parsed.name, args: parsed.args.map((a) => a.toString()) } : undefined
  } catch {
    return undefined
  }
}

export class RpcCallError extends Error {
  constructor(method, error) {
    super(`${method}: [${error.code}] ${error.message}`)
    this.name = 'RpcCallError'
    this.code = error.code
    this.data = error.data
    this.rpcMessage = error.message
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Chain: one node's JSON-RPC endpoint. */
export class Chain {
  constructor(url) {
    this.url = url
    this.nextId = 1
    this.chainIdValue = undefined
  }

  async rpc(method, params = []) {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
      signal: AbortSignal.timeout(30_000),
    })
    const body = await res.json()
    if (body.error) throw new RpcCallError(method, body.error)
    return body.result
  }

  async chainId() {
    this.chainIdValue ??= BigInt(await this.rpc('eth_chainId'))
    return this.chainIdValue
  }

  /** signer(privateKey): a wallet whose nonce this client tracks. */
  signer(privateKey) {
    const wallet = new Wallet(privateKey)
    return { wallet, address: wallet.address, nonce: undefined }
  }

  async latestBlock() {
    return this.rpc('eth_getBlockByNumber', ['latest', false])
  }

  async timestamp() {
    return Number(BigInt((await this.latestBlock()).timestamp))
  }

  async balance(address, block = 'latest') {
    return BigInt(await this.rpc('eth_getBalance', [address, block]))
  }

  /** sendTx signs and submits; returns the hash. `gas` is required (no estimate here). */
  async sendTx(signer, { to, data = '0x', value = 0n, gas }) {
    if (signer.nonce === undefined) {
      signer.nonce = Number(BigInt(await this.rpc('eth_getTransactionCount', [signer.address, 'pending'])))
    }
    const nonce = signer.nonce++
    const raw = await signer.wallet.signTransaction({
      type: 2,
      chainId: await this.chainId(),
      nonce,
      to: to ?? null,
      data,
      value,
      gasLimit: gas,
      maxFeePerGas: MAX_FEE_PER_GAS_WEI,
      maxPriorityFeePerGas: PRIORITY_FEE_WEI,
    })
    try {
      return await this.rpc('eth_sendRawTransaction', [raw])
    } catch (err) {
      signer.nonce = undefined // resync from the node next time
      throw err
    }
  }

  /**
   * sendBatch signs `txs` ({ signer, to, data, value, gas }) and submits them in one JSON-RPC
   * batch, so the node pools them together and seals them in a few blocks instead of one block
   * each. Returns the hashes in order; any rejected transaction throws.
   */
  async sendBatch(txs) {
    const chainId = await this.chainId()
    const body = []
    for (const { signer, to, data = '0x', value = 0n, gas } of txs) {
      if (signer.nonce === undefined) {
        signer.nonce = Number(BigInt(await this.rpc('eth_getTransactionCount', [signer.address, 'pending'])))
      }
      const raw = await signer.wallet.signTransaction({
        type: 2,
        chainId,
        nonce: signer.nonce++,
        to: to ?? null,
        data,
        value,
        gasLimit: gas,
        maxFeePerGas: MAX_FEE_PER_GAS_WEI,
        maxPriorityFeePerGas: PRIORITY_FEE_WEI,
      })
      body.push({ jsonrpc: '2.0', id: this.nextId++, method: 'eth_sendRawTransaction', params: [raw] })
    }
    if (body.length === 0) return []
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    })
    const answers = await res.json()
    const byId = new Map(answers.map((a) => [a.id, a]))
    return body.map((req) => {
      const a = byId.get(req.id)
      if (a?.error) {
        for (const t of txs) t.signer.nonce = undefined
        throw new RpcCallError('eth_sendRawTransaction (batch)', a.error)
      }
      return a.result
    })
  }

  async receipt(hash, timeoutMs = RECEIPT_TIMEOUT_MS) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const r = await this.rpc('eth_getTransactionReceipt', [hash])
      if (r) return r
      if (Date.now() > deadline) throw new Error(`no receipt for ${hash} after ${timeoutMs} ms`)
      await sleep(RECEIPT_POLL_MS)
    }
  }

  /** estimate: eth_estimateGas; a revert throws DaoRevertError(what). */
  async estimate(what, tx) {
    try {
      return BigInt(await this.rpc('eth_estimateGas', [hexTx(tx)]))
    } catch (err) {
      if (err instanceof RpcCallError && (err.code === 3 || /revert/i.test(err.rpcMessage))) {
        throw new DaoRevertError(what, err.data, err.rpcMessage)
      }
      throw err
    }
  }

  /**
   * transact: estimate, send, wait; a reverted receipt throws. Returns the receipt. When the node
   * gives up on the estimate (its eth_call time budget, on a busy machine), FALLBACK_GAS is used.
   */
  async transact(what, signer, tx) {
    let gas = tx.gas
    if (gas === undefined) {
      try {
        const estimate = await this.estimate(what, { ...tx, from: signer.address })
        const padded = estimate + (estimate * GAS_HEADROOM_PERCENT) / 100n + GAS_HEADROOM_FIXED
        gas = padded > MAX_TX_GAS ? MAX_TX_GAS : padded
      } catch (err) {
        if (!(err instanceof RpcCallError && /timeout/i.test(err.rpcMessage))) throw err
        gas = FALLBACK_GAS
      }
    }
    const hash = await this.sendTx(signer, { ...tx, gas })
    const receipt = await this.receipt(hash)
    if (receipt.status !== '0x1') throw new Error(`${what}: transaction ${hash} failed on chain (status 0)`)
    return receipt
  }

  /** deploy artifact `name` with constructor `args`; returns { address, receipt }. */
  async deploy(signer, name, args = [], { value = 0n } = {}) {
    const a = artifact(name)
    const data = a.bytecode + new Interface(a.abi).encodeDeploy(args).slice(2)
    const receipt = await this.transact(`deploy ${name}`, signer, { data, value })
    return { address: receipt.contractAddress, receipt }
  }

  /** deployRaw deploys creation bytecode (e.g. a test contract compiled on the fly). */
  async deployRaw(signer, what, bytecode, { value = 0n } = {}) {
    const receipt = await this.transact(`deploy ${what}`, signer, { data: bytecode, value })
    return { address: receipt.contractAddress, receipt }
  }

  /** nextAddresses: the addresses `signer`'s next `n` contract creations will get. */
  async nextAddresses(signer, n) {
    const nonce = Number(BigInt(await this.rpc('eth_getTransactionCount', [signer.address, 'pending'])))
    return Array.from({ length: n }, (_, i) => getCreateAddress({ from: signer.address, nonce: nonce + i }))
  }

  contract(name, address, abi = artifact(name).abi) {
    return new BoundContract(this, name, address, new Interface(abi))
  }

  /**
   * warpTo makes blocks (0-value transfers from `signer` to itself) until the head's timestamp is
   * at least `timestamp`. Each block is >= 1 s after its parent, so this moves the chain ahead of
   * the wall clock; the next transaction then lands at exactly head + 1.
   */
  async warpTo(signer, timestamp) {
    let now = await this.timestamp()
    while (now < timestamp) {
      const hash = await this.sendTx(signer, { to: signer.address, gas: 21_000n })
      const r = await this.receipt(hash)
      const block = await this.rpc('eth_getBlockByNumber', [r.blockNumber, false])
      now = Number(BigInt(block.timestamp))
    }
    return now
  }
}

function hexTx(tx) {
  const out = {}
  if (tx.from) out.from = tx.from
  if (tx.to) out.to = tx.to
  if (tx.data) out.data = tx.data
  if (tx.value) out.value = `0x${BigInt(tx.value).toString(16)}`
  if (tx.gas) out.gas = `0x${BigInt(tx.gas).toString(16)}`
  return out
}

/** BoundContract: one contract at one address. */
export class BoundContract {
  constructor(chain, name, address, iface) {
    this.chain = chain
    this.name = name
    this.address = address
    this.iface = iface
  }

  encode(fn, args = []) {
    return this.iface.encodeFunctionData(fn, args)
  }

  /** read: eth_call; returns the single output, or the Result for several. Reverts throw DaoRevertError. */
  async read(fn, args = [], { from, block = 'latest' } = {}) {
    const data = this.encode(fn, args)
    let out
    try {
      out = await this.chain.rpc('eth_call', [hexTx({ from, to: this.address, data }), block])
    } catch (err) {
      if (err instanceof RpcCallError && (err.code === 3 || /revert/i.test(err.rpcMessage))) {
        throw new DaoRevertError(`${this.name}.${fn}`, err.data, err.rpcMessage)
      }
      throw err
    }
    const result = this.iface.decodeFunctionResult(fn, out)
    return result.length === 1 ? result[0] : result
  }

  /** write: a transaction (estimated; reverts throw DaoRevertError before anything is sent). */
  write(signer, fn, args = [], { value = 0n, gas } = {}) {
    return this.chain.transact(`${this.name}.${fn}`, signer, {
      to: this.address,
      data: this.encode(fn, args),
      value,
      gas,
    })
  }

  /** send: submit without estimating or waiting (fixed gas); returns the hash. */
  send(signer, fn, args = [], { value = 0n, gas = 1_000_000n } = {}) {
    return this.chain.sendTx(signer, { to: this.address, data: this.encode(fn, args), value, gas })
  }

  /** revertOf: the decoded error `fn` would revert with if `from` sent it now (undefined = no revert). */
  async revertOf(from, fn, args = [], { value = 0n, block = 'latest' } = {}) {
    try {
      await this.chain.rpc('eth_call', [
        hexTx({ from: from.address ?? from, to: this.address, data: this.encode(fn, args), value }),
        block,
      ])
      return undefined
    } catch (err) {
      if (err instanceof RpcCallError) {
        return decodeRevert(err.data) ?? { name: `undecoded: ${err.rpcMessage}`, args: [] }
      }
      throw err
    }
  }

  /** logs: the receipt's logs of this contract, decoded ({ name, args }). */
  events(receipt) {
    const out = []
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== this.address.toLowerCase()) continue
      try {
        const parsed = this.iface.parseLog(log)
        if (parsed) out.push({ name: parsed.name, args: parsed.args })
      } catch {
        // an event of another ABI emitted at this address (e.g. a proxy's)
      }
    }
    return out
  }
}
