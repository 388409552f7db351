/**
 * Reads of fast-path connections (wire.ts) without the stream layer.
 *
 * A plain read of a node:net socket allocates a new ArrayBuffer, pushes it into the socket's
 * Readable, schedules a `maybeReadMore` tick and emits 'data': about a fifth of the main thread's
 * time per small JSON-RPC request. Node's `onread` option of net.Socket (documented since v12)
 * skips all that: libuv reads into one caller-owned buffer and a callback gets the byte count.
 * node:http's accepted sockets take no such option, so this puts it on them after accept — the
 * same three fields and the same `useUserBuffer` call that `new net.Socket({ onread })` makes.
 * Node names those fields with private symbols; they are found by their descriptions on a probe
 * socket, and where they are not (another Node), connections read as before ('data' events).
 *
 *   libuv read ──▶ READ_BUFFER (one for every connection: reads are handled one at a time) ──▶ sink(copy)
 *
 * pause() and resume() keep working: net.Socket stops and restarts the handle's reads itself when
 * the field is set. After a connection is handed to node:http, the sink pushes the bytes into the
 * socket's stream (wire.ts), which is what a plain read does — node:http's parser reads the handle
 * directly anyway, and a WebSocket upgrade's 'data' listener gets them through the push.
 */
import { Socket } from 'node:net'

/** Bytes of the read buffer every fast-path connection shares (Node's own read size). */
export const WIRE_READ_BUFFER_BYTES = 64 * 1024

/** Gets a read's bytes (a copy the sink owns); false stops reading until the socket is resumed. */
export type ReadSink = (bytes: Buffer) => boolean

interface ReadFields {
  buffer: symbol
  callback: symbol
  generator: symbol
}

type HandleWithUserBuffer = { useUserBuffer?: (buffer: Uint8Array) => void }

/** The Socket fields behind `onread`, or undefined when this Node does not have them. */
function findReadFields(): ReadFields | undefined {
  const probe = new Socket()
  const byName = new Map<string, symbol>()
  for (const key of Object.getOwnPropertySymbols(probe)) if (key.description) byName.set(key.description, key)
  probe.destroy()
  const buffer = byName.get('kBuffer')
  const callback = byName.get('kBufferCb')
  const generator = byName.get('kBufferGen')
  if (buffer === undefined || callback === undefined || generator === undefined) return undefined
  return { buffer, callback, generator }
}

const FIELDS = findReadFields()
let readBuffer: Buffer | undefined

/** True when this Node lets fast-path connections read without the stream layer. */
export function directReadsAvailable(): boolean {
  return FIELDS !== undefined
}

/**
 * Sends `socket`'s reads to `sink` from now on; false (nothing changed) when this Node or this
 * socket's handle cannot, and the caller listens for 'data' instead.
 */
export function readDirect(socket: Socket, sink: ReadSink): boolean {
  const handle = (socket as unknown as { _handle?: HandleWithUserBuffer | null })._handle
  if (FIELDS === undefined || handle == null || typeof handle.useUserBuffer !== 'function') return false
  readBuffer ??= Buffer.allocUnsafeSlow(WIRE_READ_BUFFER_BYTES)
  const fields = socket as unknown as Record<symbol, unknown>
  fields[FIELDS.buffer] = readBuffer
  fields[FIELDS.generator] = null
  fields[FIELDS.callback] = (length: number, buffer: Buffer): boolean => {
    const bytes = Buffer.allocUnsafe(length)
    buffer.copy(bytes, 0, 0, length)
    return sink(bytes)
  }
  handle.useUserBuffer(readBuffer)
  return true
}
