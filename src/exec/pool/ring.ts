/**
 * The call lane's transport (ringLane.ts on the main thread, ringWorker.ts in a call worker): one
 * SharedArrayBuffer per worker holding a ring of `depth` slots, each with its task's start flag
 * (startClaim.ts), the task's bytes and its answer's bytes, and three control words:
 *
 *   SUBMITTED  tasks the main thread has written (a sequence number; task n is in slot n % depth)
 *   ANSWERED   tasks the worker has answered, in the same order (it runs them one after another)
 *   READY      1 once the worker has loaded and serves
 *   SLEEPING   1 while the worker sleeps in Atomics.wait: only then does the main thread notify
 *
 * The main thread writes a task into the next free slot, stores SUBMITTED and notifies it (the
 * worker sleeps in Atomics.wait on it when it has nothing to do); the worker writes the answer
 * into the same slot, stores ANSWERED and notifies it (the main thread waits with
 * Atomics.waitAsync). No structured clone, no MessagePort event, no task bookkeeping of a pool
 * library: the hand-over Piscina made cost the main thread ~30 µs of a ~75 µs eth_call
 * (2026-11-28 profile) and the worker its message handling.
 *
 * Plain eth_call and eth_estimateGas tasks (no overrides, access list, blob hashes or
 * authorizations; their bytes within RING_TASK_BYTES) and answers that are bytes, a number or
 * revert data within RING_ANSWER_BYTES cross as bytes (the codec below). Anything else crosses as
 * a structured clone on the worker's MessagePort, and its slot says so (FORM_PORT): the reader
 * takes it with receiveMessageOnPort when it reaches that slot, so the order is the ring's.
 */
import type { MessagePort } from 'node:worker_threads'
import type { CallLaneTask, CallTask, TaskResult } from './tasks.js'

/** What the main thread hands a call worker for its ring (in its workerData, `ring`). */
export interface RingShared {
  sab: SharedArrayBuffer
  depth: number
  /** The worker's end of the channel for what does not fit the ring (transferred). */
  port: MessagePort
}

/** Index of the control word counting the tasks written (wraps as an int32). */
export const SUBMITTED = 0
/** Index of the control word counting the tasks answered (wraps as an int32). */
export const ANSWERED = 1
/** Index of the control word the worker sets to 1 once it serves. */
export const READY = 2
/** Index of the control word the worker sets to 1 while it sleeps in Atomics.wait (so it needs a notify). */
export const SLEEPING = 3
const CONTROL_WORDS = 8

/** Bytes of a task's place in a slot: a call's calldata up to ~1.9 KiB crosses as bytes. */
export const RING_TASK_BYTES = 2048
/** Bytes of an answer's place in a slot: return data up to ~2 KiB crosses as bytes. */
export const RING_ANSWER_BYTES = 2048

const SLOT_BYTES = RING_TASK_BYTES + RING_ANSWER_BYTES

/**
 * How long a call worker that ran out of tasks keeps looking for the next before it sleeps, µs
 * (ringWorker.ts).
 */
export const RING_SPIN_US = 50

/** The slot's content is in it. */
export const FORM_BYTES = 1
/** The slot's content is the next message on the worker's MessagePort. */
export const FORM_PORT = 2

const KIND_CALL = 0
const KIND_ESTIMATE = 1

const ANSWER_BYTES = 0
const ANSWER_NUMBER = 1
const ANSWER_REVERT = 2

const TASK_HEAD = 80
const ANSWER_HEAD = 8
const U64_LIMIT = 1n << 64n
const WORD_BYTES = 32

/** The request fields carried as bytes, in order; a bit each in the task's field mask. */
const ADDRESS_FIELDS = ['from', 'to'] as const
const NUMBER_FIELDS = [
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'nonce',
  'chainId',
  'maxFeePerBlobGas',
] as const
const DATA_BIT = 1 << (ADDRESS_FIELDS.length + NUMBER_FIELDS.length)

/** The views both threads make of one worker's shared buffer. */
export class RingLayout {
  readonly sab: SharedArrayBuffer
  readonly depth: number
  readonly control: Int32Array
  /** One start flag per slot (startClaim.ts). */
  readonly flags: Int32Array[]
  readonly bytes: Uint8Array
  readonly view: DataView

  constructor(sab: SharedArrayBuffer, depth: number) {
    this.sab = sab
    this.depth = depth
    this.control = new Int32Array(sab, 0, CONTROL_WORDS)
    this.flags = Array.from({ length: depth }, (_, i) => new Int32Array(sab, (CONTROL_WORDS + i) * 4, 1))
    this.bytes = new Uint8Array(sab)
    this.view = new DataView(sab)
  }

  /** A new ring of `depth` slots. */
  static create(depth: number): RingLayout {
    return new RingLayout(new SharedArrayBuffer(RingLayout.#slotsAt(depth) + depth * SLOT_BYTES), depth)
  }

  static #slotsAt(depth: number): number {
    return Math.ceil(((CONTROL_WORDS + depth) * 4) / 64) * 64
  }

  taskAt(slot: number): number {
    return RingLayout.#slotsAt(this.depth) + slot * SLOT_BYTES
  }

  answerAt(slot: number): number {
    return this.taskAt(slot) + RING_TASK_BYTES
  }
}

/** A non-negative number below 2^256 as a length byte and its big-endian bytes; -1 when it is not one. */
function writeNumber(bytes: Uint8Array, at: number, end: number, v: bigint): number {
  if (v < 0n) return -1
  let len = 0
  for (let x = v; x > 0n; x >>= 8n) len++
  if (len > WORD_BYTES || at + 1 + len > end) return -1
  bytes[at] = len
  let x = v
  for (let i = len; i >= 1; i--) {
    bytes[at + i] = Number(x & 0xffn)
    x >>= 8n
  }
  return at + 1 + len
}

function readNumber(bytes: Uint8Array, at: number): [bigint, number] {
  const len = bytes[at] as number
  let v = 0n
  for (let i = 1; i <= len; i++) v = (v << 8n) | BigInt(bytes[at + i] as number)
  return [v, at + 1 + len]
}

/**
 * Writes `task` into its slot as bytes; false when it must cross on the port instead (a kind or a
 * field the codec does not carry, or too long).
 */
export function writeTask(ring: RingLayout, slot: number, task: CallLaneTask): boolean {
  if (task.kind !== 'call' && task.kind !== 'estimateGas') return false
  const t = task as CallTask
  const req = t.request
  if (t.overrides !== undefined || req.accessList !== undefined) return false
  if (req.blobVersionedHashes !== undefined || req.authorizationList !== undefined) return false
  if (t.head < 0n || t.head >= U64_LIMIT || t.limits.gasCap < 0n || t.limits.gasCap >= U64_LIMIT) return false
  if (t.blockHash.length !== WORD_BYTES) return false
  const { bytes, view } = ring
  const start = ring.taskAt(slot)
  const end = start + RING_TASK_BYTES
  let at = start + TASK_HEAD
  let mask = 0
  let bit = 1
  for (const f of ADDRESS_FIELDS) {
    const a = req[f]
    if (a !== undefined) {
      if (a.length !== 20) return false
      bytes.set(a, at)
      at += 20
      mask |= bit
    }
    bit <<= 1
  }
  for (const f of NUMBER_FIELDS) {
    const n = req[f]
    if (n !== undefined) {
      at = writeNumber(bytes, at, end, n)
      if (at < 0) return false
      mask |= bit
    }
    bit <<= 1
  }
  if (req.data !== undefined) {
    if (at + 4 + req.data.length > end) return false
    view.setUint32(at, req.data.length, true)
    bytes.set(req.data, at + 4)
    at += 4 + req.data.length
    mask |= DATA_BIT
  }
  bytes[start] = FORM_BYTES
  bytes[start + 1] = t.kind === 'call' ? KIND_CALL : KIND_ESTIMATE
  view.setUint16(start + 2, mask, true)
  view.setFloat64(start + 8, t.startBy, true)
  view.setFloat64(start + 16, t.budgetMs, true)
  view.setFloat64(start + 24, t.limits.timeoutMs, true)
  view.setBigUint64(start + 32, t.head, true)
  view.setBigUint64(start + 40, t.limits.gasCap, true)
  bytes.set(t.blockHash, start + 48)
  return true
}

/** Marks the slot's task as the next message on the port. */
export function markTaskOnPort(ring: RingLayout, slot: number): void {
  ring.bytes[ring.taskAt(slot)] = FORM_PORT
}

/** How the slot's task crosses: FORM_BYTES or FORM_PORT. */
export function taskForm(ring: RingLayout, slot: number): number {
  return ring.bytes[ring.taskAt(slot)] as number
}

/** The task writeTask wrote into the slot (its start flag not set: the reader's own view is). */
export function readTask(ring: RingLayout, slot: number): CallTask {
  const { bytes, view } = ring
  const start = ring.taskAt(slot)
  const mask = view.getUint16(start + 2, true)
  const request: CallTask['request'] = {}
  let at = start + TASK_HEAD
  let bit = 1
  for (const f of ADDRESS_FIELDS) {
    if (mask & bit) {
      request[f] = bytes.slice(at, at + 20)
      at += 20
    }
    bit <<= 1
  }
  for (const f of NUMBER_FIELDS) {
    if (mask & bit) [request[f], at] = readNumber(bytes, at)
    bit <<= 1
  }
  if (mask & DATA_BIT) {
    const len = view.getUint32(at, true)
    request.data = bytes.slice(at + 4, at + 4 + len)
  }
  return {
    kind: bytes[start + 1] === KIND_CALL ? 'call' : 'estimateGas',
    head: view.getBigUint64(start + 32, true),
    budgetMs: view.getFloat64(start + 16, true),
    startBy: view.getFloat64(start + 8, true),
    blockHash: bytes.slice(start + 48, start + 48 + WORD_BYTES),
    request,
    limits: { gasCap: view.getBigUint64(start + 40, true), timeoutMs: view.getFloat64(start + 24, true) },
  }
}

/**
 * Writes a task's answer into its slot as bytes; false when it must cross on the port instead
 * (not bytes, a number or revert data, or too long).
 */
export function writeAnswer(ring: RingLayout, slot: number, result: TaskResult<unknown>): boolean {
  const { bytes, view } = ring
  const start = ring.answerAt(slot)
  const end = start + RING_ANSWER_BYTES
  let type: number
  let len: number
  if (result.ok && result.value instanceof Uint8Array) {
    type = ANSWER_BYTES
    len = result.value.length
    if (start + ANSWER_HEAD + len > end) return false
    bytes.set(result.value, start + ANSWER_HEAD)
  } else if (result.ok && typeof result.value === 'bigint') {
    type = ANSWER_NUMBER
    const at = writeNumber(bytes, start + ANSWER_HEAD, end, result.value)
    if (at < 0) return false
    len = at - start - ANSWER_HEAD
  } else if (!result.ok && result.failure.kind === 'revert') {
    type = ANSWER_REVERT
    len = result.failure.data.length
    if (start + ANSWER_HEAD + len > end) return false
    bytes.set(result.failure.data, start + ANSWER_HEAD)
  } else {
    return false
  }
  bytes[start] = FORM_BYTES
  bytes[start + 1] = type
  view.setUint32(start + 4, len, true)
  return true
}

/** Marks the slot's answer as the next message on the port. */
export function markAnswerOnPort(ring: RingLayout, slot: number): void {
  ring.bytes[ring.answerAt(slot)] = FORM_PORT
}

/** How the slot's answer crosses: FORM_BYTES or FORM_PORT. */
export function answerForm(ring: RingLayout, slot: number): number {
  return ring.bytes[ring.answerAt(slot)] as number
}

/** The answer writeAnswer wrote into the slot (its bytes copied out: the slot is reused). */
export function readAnswer(ring: RingLayout, slot: number): TaskResult<unknown> {
  const { bytes, view } = ring
  const start = ring.answerAt(slot)
  const len = view.getUint32(start + 4, true)
  const at = start + ANSWER_HEAD
  switch (bytes[start + 1]) {
    case ANSWER_BYTES:
      return { ok: true, value: bytes.slice(at, at + len) }
    case ANSWER_NUMBER:
      return { ok: true, value: readNumber(bytes, at)[0] }
    default:
      return { ok: false, failure: { kind: 'revert', data: bytes.slice(at, at + len) } }
  }
}
