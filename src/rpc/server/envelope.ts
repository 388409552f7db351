/**
 * The JSON-RPC envelope of one message as geth reads it: `jsonrpc`, `id`, `method`, `params`,
 * `result`, `error`, with Go's case-insensitive member matching, and what kind of message that
 * makes (a call, a notification, a response to ignore). The dispatcher (dispatch.ts) answers it.
 */

/** The envelope members geth reads, after its (case-insensitive) field matching. */
export class Envelope {
  version: unknown = undefined
  id: unknown = undefined
  method: unknown = undefined
  params: unknown = undefined
  result: unknown = undefined
  error: unknown = undefined

  static read(o: Record<string, unknown>): Envelope {
    const e = new Envelope()
    e.version = o.jsonrpc
    e.id = o.id
    e.method = o.method
    e.params = o.params
    e.result = o.result
    e.error = o.error
    // Go's encoding/json also accepts `ID`, `Method`…: look only when a member is missing.
    if (e.version === undefined || e.id === undefined || e.method === undefined) e.readFolded(o)
    return e
  }

  private readFolded(o: Record<string, unknown>): void {
    for (const key of Object.keys(o)) {
      switch (key.toLowerCase()) {
        case 'jsonrpc':
          this.version = o[key]
          break
        case 'id':
          this.id = o[key]
          break
        case 'method':
          this.method = o[key]
          break
        case 'params':
          this.params = o[key]
          break
        case 'result':
          this.result = o[key]
          break
        case 'error':
          this.error = o[key]
          break
      }
    }
  }

  get validVersion(): boolean {
    return this.version === '2.0'
  }
  get validId(): boolean {
    return this.id !== undefined && (this.id === null || typeof this.id !== 'object')
  }
  get methodName(): string {
    return typeof this.method === 'string' ? this.method : ''
  }
  get isCall(): boolean {
    return this.validVersion && this.validId && this.methodName !== ''
  }
  get isNotification(): boolean {
    return this.validVersion && this.id === undefined && this.methodName !== ''
  }
  get isResponse(): boolean {
    return (
      this.validVersion &&
      this.validId &&
      this.methodName === '' &&
      this.params === undefined &&
      (this.result !== undefined || this.error !== undefined)
    )
  }
}

export function envelopeOf(msg: unknown): Envelope | undefined {
  return typeof msg === 'object' && msg !== null && !Array.isArray(msg)
    ? Envelope.read(msg as Record<string, unknown>)
    : undefined
}
