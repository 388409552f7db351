/**
 * The head of a request the HTTP fast path (wire.ts) takes: `POST <target> HTTP/1.1` and plain
 * headers, of which it keeps the five the transport needs. Anything unusual answers undefined and
 * the connection goes to node:http, whose parser then accepts or refuses it as always.
 */

/** The headers of a fast-path request the handler needs (header values as node:http decodes them, latin1). */
export interface WireRequest {
  host: string | undefined
  contentType: string | undefined
  contentLength: number
  origin: string | undefined
  forwardedFor: string | undefined
  /** The client sent `Connection: close`. */
  close: boolean
  /** The peer's address (socket.remoteAddress). */
  peer: string
}

/**
 * The request line and headers of a fast-path request; undefined when anything is not the plain
 * shape (node:http then parses it, and answers or refuses it as usual).
 */
export function parseHead(text: string, peer: string): WireRequest | undefined {
  let eol = text.indexOf('\r\n')
  const line = eol < 0 ? text : text.slice(0, eol)
  // POST <target> HTTP/1.1, one space each, no control characters
  if (line.length < 15 || !line.endsWith(' HTTP/1.1') || line.indexOf(' ', 5) !== line.length - 9) return undefined
  if (line.charCodeAt(5) === 0x20 || hasControl(line)) return undefined
  let host: string | undefined
  let contentType: string | undefined
  let contentLength = -1
  let origin: string | undefined
  let forwardedFor: string | undefined
  let close = false
  let pos = eol < 0 ? text.length : eol + 2
  while (pos < text.length) {
    eol = text.indexOf('\r\n', pos)
    const header = eol < 0 ? text.slice(pos) : text.slice(pos, eol)
    pos = eol < 0 ? text.length : eol + 2
    const colon = header.indexOf(':')
    if (colon <= 0) return undefined
    const last = header.charCodeAt(colon - 1)
    // obs-fold, whitespace before the colon, bare CR/LF or NUL: node:http's parser decides
    if (header.charCodeAt(0) <= 0x20 || last === 0x20 || last === 0x09 || hasControl(header)) return undefined
    const name = header.slice(0, colon).toLowerCase()
    const value = trimOws(header.slice(colon + 1))
    switch (name) {
      case 'host':
        if (host !== undefined) return undefined
        host = value
        break
      case 'content-type':
        if (contentType !== undefined) return undefined
        contentType = value
        break
      case 'content-length':
        if (contentLength >= 0 || !/^\d{1,15}$/.test(value)) return undefined
        contentLength = Number(value)
        break
      case 'origin':
        if (origin !== undefined || /[^\x20-\x7e]/.test(value)) return undefined
        origin = value
        break
      case 'x-forwarded-for':
        forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`
        break
      case 'connection': {
        const v = value.toLowerCase()
        if (v === 'close') close = true
        else if (v !== 'keep-alive') return undefined
        break
      }
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return undefined
    }
  }
  if (contentLength < 0) return undefined
  return { host, contentType, contentLength, origin, forwardedFor, close, peer }
}

const CR = 0x0d
const LF = 0x0a

/**
 * True when `buf` holds an LF not after a CR, or a CR followed by something other than LF: a head
 * that will never end in CRLFCRLF (node:http refuses it with 400 as soon as it sees it).
 */
export function hasLoneLineEnd(buf: Buffer): boolean {
  for (let i = buf.indexOf(LF); i >= 0; i = buf.indexOf(LF, i + 1)) if (i === 0 || buf[i - 1] !== CR) return true
  for (let i = buf.indexOf(CR); i >= 0; i = buf.indexOf(CR, i + 1))
    if (i + 1 < buf.length && buf[i + 1] !== LF) return true
  return false
}

/** True when `s` holds a character below 0x20 other than tab, or DEL. */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true
  }
  return false
}

/** A header value without the spaces and tabs around it (HTTP's OWS). */
function trimOws(s: string): string {
  let start = 0
  let end = s.length
  while (start < end && (s.charCodeAt(start) === 0x20 || s.charCodeAt(start) === 0x09)) start++
  while (end > start && (s.charCodeAt(end - 1) === 0x20 || s.charCodeAt(end - 1) === 0x09)) end--
  return start === 0 && end === s.length ? s : s.slice(start, end)
}
