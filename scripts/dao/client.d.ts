// Types of client.js for the TypeScript tests (test/dao).
import type { Interface, Wallet } from 'ethers'

export interface Signer {
  wallet: Wallet
  address: string
  nonce: number | undefined
}

export interface TxFields {
  to?: string
  data?: string
  value?: bigint
  gas?: bigint
}

// biome-ignore lint/suspicious/noExplicitAny: receipts and blocks are JSON-RPC objects
export type Json = Record<string, any>

export interface DecodedError {
  name: string
  args: string[]
}

export interface Artifact {
  contractName: string
  sourceName: string
  compiler: string
  abi: Json[]
  bytecode: string
  deployedBytecode: string
}

export function artifact(name: string): Artifact
export function errorInterface(): Interface
export function decodeRevert(data: unknown): DecodedError | undefined

export class DaoRevertError extends Error {
  reason: string | undefined
  args: string[]
  data: unknown
}

export class RpcCallError extends Error {
  code: number
  data: unknown
  rpcMessage: string
}

export class Chain {
  constructor(url: string)
  url: string
  // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results
  rpc(method: string, params?: unknown[]): Promise<any>
  chainId(): Promise<bigint>
  signer(privateKey: string): Signer
  latestBlock(): Promise<Json>
  timestamp(): Promise<number>
  balance(address: string, block?: string): Promise<bigint>
  sendTx(signer: Signer, tx: TxFields & { gas: bigint }): Promise<string>
  sendBatch(txs: (TxFields & { signer: Signer; gas: bigint })[]): Promise<string[]>
  receipt(hash: string, timeoutMs?: number): Promise<Json>
  estimate(what: string, tx: TxFields & { from?: string }): Promise<bigint>
  transact(what: string, signer: Signer, tx: TxFields): Promise<Json>
  deploy(
    signer: Signer,
    name: string,
    args?: unknown[],
    opts?: { value?: bigint },
  ): Promise<{ address: string; receipt: Json }>
  deployRaw(
    signer: Signer,
    what: string,
    bytecode: string,
    opts?: { value?: bigint },
  ): Promise<{ address: string; receipt: Json }>
  nextAddresses(signer: Signer, n: number): Promise<string[]>
  contract(name: string, address: string, abi?: Json[]): BoundContract
  warpTo(signer: Signer, timestamp: number): Promise<number>
}

export interface DecodedEvent {
  name: string
  // biome-ignore lint/suspicious/noExplicitAny: ethers Result
  args: any
}

export class BoundContract {
  chain: Chain
  name: string
  address: string
  iface: Interface
  encode(fn: string, args?: unknown[]): string
  // biome-ignore lint/suspicious/noExplicitAny: decoded ABI output
  read(fn: string, args?: unknown[], opts?: { from?: string; block?: string }): Promise<any>
  write(signer: Signer, fn: string, args?: unknown[], opts?: { value?: bigint; gas?: bigint }): Promise<Json>
  send(signer: Signer, fn: string, args?: unknown[], opts?: { value?: bigint; gas?: bigint }): Promise<string>
  revertOf(
    from: Signer | string,
    fn: string,
    args?: unknown[],
    opts?: { value?: bigint; block?: string },
  ): Promise<DecodedError | undefined>
  events(receipt: Json): DecodedEvent[]
}
