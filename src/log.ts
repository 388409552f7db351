/**
 * The node's leveled logger, on pino, to stderr (stdout carries the start banner and command
 * output). Two line formats (`--log-format`):
 *
 *   json  {"level":"info","time":"2026-11-02T10:00:00.000Z","pid":1,"msg":"sealed block 5 …","txs":3}
 *   text  2026-11-02T10:00:00.000Z INFO  sealed block 5 … txs=3
 *
 * Writes are synchronous: a line logged just before a crash or `process.exit` is not lost, and
 * at `info` the node logs a few lines per block, far from where that costs throughput.
 */
import { pino } from 'pino'

import type { LogFormat, LogLevel } from './config/types.js'

/** Extra fields of a log line (JSON members; `key=value` in text). */
export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

/** Members of a pino line that the text format prints in its own columns. */
const TEXT_COLUMNS = new Set(['level', 'time', 'pid', 'msg'])

/** formatTextLine renders one pino JSON line as `TIME LEVEL message key=value…`. */
export function formatTextLine(json: string): string {
  let o: Record<string, unknown>
  try {
    o = JSON.parse(json) as Record<string, unknown>
  } catch {
    return json
  }
  let line = `${String(o.time)} ${String(o.level).toUpperCase().padEnd(5)} ${String(o.msg ?? '')}`
  for (const key of Object.keys(o)) {
    if (TEXT_COLUMNS.has(key)) continue
    const v = o[key]
    line += ` ${key}=${typeof v === 'string' ? v : JSON.stringify(v)}`
  }
  return `${line}\n`
}

/** A pino destination that writes text lines to stderr. */
class TextStream {
  write(json: string): void {
    process.stderr.write(formatTextLine(json))
  }
}

export function createLogger(level: LogLevel, format: LogFormat = 'json'): Logger {
  const destination = format === 'text' ? new TextStream() : pino.destination({ dest: 2, sync: true })
  const p = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
  return {
    debug: (msg, fields) => (fields === undefined ? p.debug(msg) : p.debug(fields, msg)),
    info: (msg, fields) => (fields === undefined ? p.info(msg) : p.info(fields, msg)),
    warn: (msg, fields) => (fields === undefined ? p.warn(msg) : p.warn(fields, msg)),
    error: (msg, fields) => (fields === undefined ? p.error(msg) : p.error(fields, msg)),
  }
}
