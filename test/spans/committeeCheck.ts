/**
 * An independent check of span committees (issue 19): recomputes, from chain state read over
 * JSON-RPC and the draw rule alone, which committee must seal every block, and compares it with
 * what the chain carries. It imports nothing from src/ — the RLP, the draw, the consent digest and
 * the seal digests are written again here from VALIDATORS.md and src/validators' documented rules,
 * with viem's keccak256 / RLP / recoverAddress.
 *
 *   span k = blocks [kS+1, (k+1)S]; span 0 = the genesis validators, power 1 each
 *   committee(k+1) = the record in block (k+1)S if it carries one, else committee(k)
 *   a record must name span k+1 and its range, refBlockHash = hash of block R = kS+1, committee =
 *     draw(validatorSet() at R, seed R.hash, producers), consent signatures by members of that set
 *     (ascending, distinct) holding > 2/3 of its power over
 *     keccak256(0x02 ‖ RLP([chainId, spanId, start, end, [[signer, power]…], refBlockHash]))
 *   draw: P = Σ power, limit = floor(2^256/P)·P; draw i: x = keccak256(seed ‖ u256(i) ‖ u256(j)) for
 *     j = 0, 1, … until x < limit; pick = x mod P → the validator whose cumulative power (signer
 *     order) first exceeds pick; committee = distinct picks, power = times drawn, by signer
 *   every block: extraData validators = its span's committee (signers), committed seals by
 *     distinct members holding > 2/3 of the committee's power
 *
 * Used by test/ibft-network/spans.test.ts (checkCommittees); it also runs alone under a TypeScript
 * runner (Node ≥ 22.6: `node --experimental-strip-types test/spans/committeeCheck.ts <rpc url>
 * <span_blocks> <producers>`; the repo's Node 20 needs a runner such as tsx, not installed here).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Abi,
  concat,
  createPublicClient,
  decodeFunctionResult,
  encodeFunctionData,
  fromRlp,
  type Hex,
  hexToBigInt,
  http,
  keccak256,
  numberToHex,
  type PublicClient,
  recoverAddress,
  toRlp,
} from 'viem'

const SIGNERS_ADDRESS = '0x0000000000000000000000000000000000da0014'
const ABI = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../contracts/abi/ValidatorSigners.json'), 'utf8'),
) as Abi
const VANITY_BYTES = 32
const TWO_256 = 1n << 256n

export interface Member {
  signer: Hex
  power: bigint
}

export interface SpanReport {
  spanId: bigint
  /** Committee the chain says seals the span (carried record or carried on). */
  committee: Member[]
  /** True when the block before the span carried a verified record. */
  switched: boolean
}

export interface CheckResult {
  spans: SpanReport[]
  /** Every mismatch found (empty when the chain is right). */
  problems: string[]
}

interface Extra {
  validators: Hex[]
  proposerSeal: Hex
  committedSeals: Hex[]
  parentCommittedSeals: Hex[]
  round: Hex
  span?: { spanId: bigint; start: bigint; end: bigint; committee: Member[]; refBlockHash: Hex; signatures: Hex[] }
}

const int = (h: Hex): bigint => (h === '0x' ? 0n : hexToBigInt(h))
const enc = (n: bigint): Hex => (n === 0n ? '0x' : numberToHex(n))

function decodeExtra(extraData: Hex): Extra {
  const list = fromRlp(`0x${extraData.slice(2 + VANITY_BYTES * 2)}`, 'hex') as unknown[]
  const [validators, proposerSeal, committedSeals, parentCommittedSeals, round, span] = list as [
    Hex[],
    Hex,
    Hex[],
    Hex[],
    Hex,
    unknown[] | undefined,
  ]
  const extra: Extra = { validators, proposerSeal, committedSeals, parentCommittedSeals, round }
  if (span !== undefined) {
    const [id, start, end, committee, refBlockHash, signatures] = span as [Hex, Hex, Hex, [Hex, Hex][], Hex, Hex[]]
    extra.span = {
      spanId: int(id),
      start: int(start),
      end: int(end),
      committee: committee.map(([signer, power]) => ({ signer, power: int(power) })),
      refBlockHash,
      signatures,
    }
  }
  return extra
}

/** The hash a sealed block must have: extraData with proposer seal and round blanked, committed seals emptied. */
function blankedExtraData(extraData: Hex, e: Extra): Hex {
  const fields: unknown[] = [e.validators, '0x', [], e.parentCommittedSeals, '0x']
  if (e.span !== undefined) {
    const s = e.span
    fields.push([enc(s.spanId), enc(s.start), enc(s.end), s.committee.map((m) => [m.signer, enc(m.power)]), s.refBlockHash, s.signatures])
  }
  return concat([`0x${extraData.slice(2, 2 + VANITY_BYTES * 2)}`, toRlp(fields as never)])
}

/** draw: the committee from `set` (ascending by signer) seeded by `seed` (module doc). */
export function draw(set: Member[], seed: Hex, producers: number): Member[] {
  if (set.length === 0) return []
  if (producers === 0) return set.map((v) => ({ signer: v.signer, power: 1n }))
  const total = set.reduce((s, v) => s + v.power, 0n)
  const limit = (TWO_256 / total) * total
  const times = set.map(() => 0n)
  const u256 = (n: number) => numberToHex(BigInt(n), { size: 32 })
  for (let i = 0; i < producers; i++) {
    let x = TWO_256
    for (let j = 0; x >= limit; j++) x = hexToBigInt(keccak256(concat([seed, u256(i), u256(j)])))
    const pick = x % total
    let acc = 0n
    const k = set.findIndex((v) => {
      acc += v.power
      return pick < acc
    })
    times[k] = (times[k] as bigint) + 1n
  }
  return set.flatMap((v, k) => ((times[k] as bigint) > 0n ? [{ signer: v.signer, power: times[k] as bigint }] : []))
}

function consentDigest(chainId: bigint, spanId: bigint, start: bigint, end: bigint, committee: Member[], ref: Hex): Hex {
  const body = toRlp([enc(chainId), enc(spanId), enc(start), enc(end), committee.map((m) => [m.signer, enc(m.power)]), ref] as never)
  return keccak256(concat(['0x02', body]))
}

function committedSealDigest(hash: Hex, round: bigint): Hex {
  return keccak256(concat([keccak256(concat([hash, numberToHex(round, { size: 8 })])), '0x02']))
}

const lower = (h: Hex) => h.toLowerCase() as Hex
const same = (a: Member[], b: Member[]) =>
  a.length === b.length && a.every((m, i) => lower(m.signer) === lower((b[i] as Member).signer) && m.power === (b[i] as Member).power)

async function validatorSetAt(client: PublicClient, blockNumber: bigint): Promise<Member[]> {
  const { data } = await client.call({
    to: SIGNERS_ADDRESS,
    data: encodeFunctionData({ abi: ABI, functionName: 'validatorSet' }),
    blockNumber,
  })
  if (data === undefined || data === '0x') return []
  const [, signers, powers] = decodeFunctionResult({ abi: ABI, functionName: 'validatorSet', data }) as [bigint[], Hex[], bigint[]]
  return signers.map((signer, i) => ({ signer: lower(signer), power: powers[i] as bigint }))
}

/** checkCommittees walks blocks 1..upTo of the node at `url` and checks every span and seal. */
export async function checkCommittees(url: string, spanBlocks: number, producers: number, upTo: bigint): Promise<CheckResult> {
  const client = createPublicClient({ transport: http(url) }) as PublicClient
  const chainId = BigInt(await client.getChainId())
  const S = BigInt(spanBlocks)
  const problems: string[] = []
  const genesis = await client.getBlock({ blockNumber: 0n })
  let committee: Member[] = decodeExtra(genesis.extraData).validators.map((signer) => ({ signer: lower(signer), power: 1n }))
  const spans: SpanReport[] = [{ spanId: 0n, committee, switched: false }]
  for (let n = 1n; n <= upTo; n++) {
    const block = await client.getBlock({ blockNumber: n })
    const e = decodeExtra(block.extraData)
    const hash = keccak256(toRlpHeader(block, blankedExtraData(block.extraData, e)))
    if (hash !== block.hash) problems.push(`block ${n}: hash ${block.hash} is not the header's ${hash}`)
    const signers = e.validators.map(lower)
    if (signers.join() !== committee.map((m) => m.signer).join())
      problems.push(`block ${n}: validators ${signers.join()} are not the span's committee ${committee.map((m) => m.signer).join()}`)
    const power = new Map(committee.map((m) => [m.signer, m.power]))
    const total = committee.reduce((s, m) => s + m.power, 0n)
    const sealers = new Set<Hex>()
    let sealed = 0n
    for (const seal of e.committedSeals) {
      const who = lower(await recoverAddress({ hash: committedSealDigest(block.hash, int(e.round)), signature: seal }))
      const w = power.get(who)
      if (w === undefined || sealers.has(who)) problems.push(`block ${n}: committed seal by ${who}, not a (new) committee member`)
      else {
        sealers.add(who)
        sealed += w
      }
    }
    if (3n * sealed <= 2n * total) problems.push(`block ${n}: seals hold ${sealed} of ${total} power`)
    if (n % S !== 0n) {
      if (e.span !== undefined) problems.push(`block ${n}: a span record outside a span's last block`)
      continue
    }
    // the last block of span k = n/S - 1: the record of span k+1, if any
    const next = n / S
    if (e.span === undefined) {
      spans.push({ spanId: next, committee, switched: false })
      continue
    }
    const r = e.span
    const refNumber = (next - 1n) * S + 1n
    const ref = await client.getBlock({ blockNumber: refNumber })
    const set = await validatorSetAt(client, refNumber)
    const drawn = draw(set, ref.hash, producers)
    if (r.spanId !== next || r.start !== next * S + 1n || r.end !== (next + 1n) * S)
      problems.push(`block ${n}: record names span ${r.spanId} [${r.start}, ${r.end}]`)
    if (lower(r.refBlockHash) !== lower(ref.hash)) problems.push(`block ${n}: record's reference is not block ${refNumber}`)
    if (!same(drawn, r.committee))
      problems.push(`block ${n}: record's committee ${JSON.stringify(r.committee, big)} is not the draw ${JSON.stringify(drawn, big)}`)
    const digest = consentDigest(chainId, next, next * S + 1n, (next + 1n) * S, drawn, ref.hash)
    const setPower = new Map(set.map((v) => [v.signer, v.power]))
    let consented = 0n
    let last = ''
    for (const sig of r.signatures) {
      const who = lower(await recoverAddress({ hash: digest, signature: sig }))
      if (!setPower.has(who) || who <= last) problems.push(`block ${n}: consent by ${who} (not in the set, or out of order)`)
      else consented += setPower.get(who) as bigint
      last = who
    }
    const setTotal = set.reduce((s, v) => s + v.power, 0n)
    if (3n * consented <= 2n * setTotal) problems.push(`block ${n}: consent holds ${consented} of ${setTotal} power`)
    committee = r.committee.map((m) => ({ signer: lower(m.signer), power: m.power }))
    spans.push({ spanId: next, committee, switched: true })
  }
  return { spans, problems }
}

function big(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v
}

/** The Prague header RLP of a block as viem returns it, with `extraData` replaced. */
function toRlpHeader(b: Awaited<ReturnType<PublicClient['getBlock']>>, extraData: Hex): Hex {
  const q = (n: bigint | null | undefined) => enc(n ?? 0n)
  const fields = [
    b.parentHash,
    b.sha3Uncles,
    b.miner,
    b.stateRoot,
    b.transactionsRoot,
    b.receiptsRoot,
    b.logsBloom as Hex,
    q(b.difficulty),
    q(b.number),
    q(b.gasLimit),
    q(b.gasUsed),
    q(b.timestamp),
    extraData,
    b.mixHash,
    b.nonce as Hex,
  ]
  const raw = b as unknown as Record<string, unknown>
  if (b.baseFeePerGas !== null && b.baseFeePerGas !== undefined) fields.push(q(b.baseFeePerGas))
  if (typeof raw.withdrawalsRoot === 'string') fields.push(raw.withdrawalsRoot as Hex)
  if (raw.blobGasUsed !== undefined && raw.blobGasUsed !== null) fields.push(q(raw.blobGasUsed as bigint), q(raw.excessBlobGas as bigint))
  if (typeof raw.parentBeaconBlockRoot === 'string') fields.push(raw.parentBeaconBlockRoot as Hex)
  if (typeof raw.requestsHash === 'string') fields.push(raw.requestsHash as Hex)
  return toRlp(fields as Hex[])
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const [url, s, p] = process.argv.slice(2)
  const client = createPublicClient({ transport: http(url) })
  const head = await client.getBlockNumber()
  const result = await checkCommittees(url as string, Number(s), Number(p), head)
  for (const span of result.spans)
    console.log(`span ${span.spanId}${span.switched ? ' (switched)' : ''}: ${span.committee.map((m) => `${m.signer}×${m.power}`).join(' ')}`)
  for (const problem of result.problems) console.log(`PROBLEM ${problem}`)
  console.log(result.problems.length === 0 ? 'ok' : 'FAILED')
  process.exit(result.problems.length === 0 ? 0 : 1)
}
