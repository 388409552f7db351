/**
 * A block's wire form: RLP [header, transactions, uncles, withdrawals?], as `geth export` and
 * `ibex export` write blocks, and as peers exchange them in block sync and IBFT proposals.
 */
import { RLP } from '@ethereumjs/rlp'

/** encodeWireBlock writes a stored block as RLP [header, txs, uncles, withdrawals?]; typed transactions stay opaque bytes, legacy ones nest. */
export function encodeWireBlock(b: {
  headerRaw: Uint8Array[]
  transactionBytes: Uint8Array[]
  withdrawals?: Uint8Array[][]
}): Uint8Array {
  const txs = b.transactionBytes.map((t) => ((t[0] as number) >= 0xc0 ? RLP.decode(t) : t))
  const body: unknown[] = [b.headerRaw, txs, []]
  if (b.withdrawals !== undefined) body.push(b.withdrawals)
  return RLP.encode(body as never)
}
