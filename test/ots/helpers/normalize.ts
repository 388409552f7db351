/**
 * Where anvil 1.7.1's ots_ answers differ from Erigon's (rpc/jsonrpc/otterscan_*.go), which ibex
 * follows, rewrite anvil's answer to Erigon's form — one documented rule each — so the
 * differential test (differential.test.ts) compares everything else exactly.
 *
 *  O1 ots_traceTransaction: anvil builds the list from parity-style traces and keeps only call
 *     actions, so a contract-creating transaction answers [] and CREATE / CREATE2 / SELFDESTRUCT
 *     frames are missing. Erigon's tracer records every frame (captureStartOrEnter for all opcodes,
 *     CaptureSelfDestruct). ibex's creation and self-destruct entries (and what ran inside them) are
 *     compared with anvil's callTracer instead (creationEntries).
 *  O2 ots_traceTransaction `value`: anvil prints "0x0" for STATICCALL and DELEGATECALL; Erigon leaves
 *     it nil (JSON null): those frames move no value.
 *  O3 ots_traceTransaction precompiles: anvil lists calls to precompiles; Erigon's tracer returns
 *     early for them (`if precompile`), and Otterscan draws no node for them.
 *  O4 ots_getInternalOperations: anvil lists the transaction's own transfer or creation (depth 0);
 *     Erigon's OperationsTracer hooks CaptureEnter only (frames below the top), so internal
 *     operations are internal.
 *  O6 ots_getBlockDetails `logsBloom`: Erigon sends null (ots-api.md: "the logsBloom attribute
 *     comes with null"); anvil sends the bloom. Compared as the rule says on ibex's side.
 *  O7 ots_getBlockTransactions receipts: Erigon's `logs` and `logsBloom` are null; anvil sends []
 *     and the bloom.
 *  O8 ots_searchTransactions* firstPage / lastPage when a page fills up exactly at the last
 *     match: anvil stops scanning and answers "more"; Erigon (buildSearchResults' hasMore) answers
 *     "more" only when a match in another block follows. Checked by asking anvil for the next
 *     page, which must be empty.
 *  O9 search receipts' `timestamp`: Erigon sets block.Time(), a JSON integer; anvil a hex quantity.
 *     Otterscan reads either (formatter.number).
 *  O5 ots_getBlockTransactions page order: Erigon counts pages from the end of the block
 *     (page 0 = the last pageSize transactions) and Otterscan reverses them; anvil counts from the
 *     start. Same answer for a block of at most one page (every block of this scenario); the
 *     order itself is tested on ibex alone (otterscan.test.ts).
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any

const PRECOMPILE = /^0x0{36}/
const CREATION_TYPES = new Set(['CREATE', 'CREATE2', 'SELFDESTRUCT'])

/** O2, O3: anvil's ots_traceTransaction in Erigon's form. */
export function erigonTrace(anvil: Json[]): Json[] {
  const out: Json[] = []
  let skipBelow = Number.POSITIVE_INFINITY
  for (const e of anvil) {
    if (e.depth > skipBelow) continue
    skipBelow = Number.POSITIVE_INFINITY
    if (e.depth > 0 && PRECOMPILE.test(e.to)) {
      skipBelow = e.depth
      continue
    }
    out.push({ ...e, value: e.type === 'STATICCALL' || e.type === 'DELEGATECALL' ? null : e.value })
  }
  return out
}

/** O1: ibex's entries without what anvil leaves out (creation and self-destruct frames, and what ran inside them). */
export function withoutCreations(entries: Json[]): Json[] {
  const out: Json[] = []
  let skipBelow = Number.POSITIVE_INFINITY
  for (const e of entries) {
    if (e.depth > skipBelow) continue
    skipBelow = Number.POSITIVE_INFINITY
    if (CREATION_TYPES.has(e.type)) {
      skipBelow = e.depth
      continue
    }
    out.push(e)
  }
  return out
}

/**
 * O1: the creation and self-destruct entries a geth callTracer tree implies, depth first, in
 * ots_traceTransaction's shape (`to` of a failed creation: undefined, compared separately).
 */
export function creationEntries(frame: Json, depth = 0, out: Json[] = []): Json[] {
  if (CREATION_TYPES.has(frame.type)) {
    out.push({
      type: frame.type,
      depth,
      from: frame.from,
      to: frame.to,
      value: frame.value ?? '0x0',
      input: frame.type === 'SELFDESTRUCT' ? '0x' : frame.input,
      output: frame.error === undefined || frame.output !== undefined ? (frame.output ?? '0x') : '0x',
    })
  }
  for (const c of frame.calls ?? []) creationEntries(c, depth + 1, out)
  return out
}

/** O4: anvil's internal operations without the transaction's own (the top frame's) transfer or creation. */
export function erigonInternalOps(
  anvil: Json[],
  tx: { from: string; to: string | null; contract: string | null },
): Json[] {
  const [first, ...rest] = anvil
  if (first === undefined) return anvil
  const top = tx.to ?? tx.contract
  const isTop = first.from === tx.from && first.to === top && (first.type === 0 || first.type === 2)
  return isTop ? rest : anvil
}
