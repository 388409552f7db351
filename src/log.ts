/**
 * A minimal leveled logger to stderr (structured JSON logs with pino come with the operations
 * issue). Lines: ISO time, level, message.
 */
import type { LogLevel } from './config/types.js'

const ORDER: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, silent: 100 }

export interface Logger {
  debug(msg: string): void
  info(msg: string): void
  warn(msg: string): void
  error(msg: string): void
}

export function createLogger(level: LogLevel): Logger {
  const min = ORDER[level]
  const write = (lvl: LogLevel, msg: string) => {
    if (ORDER[lvl] >= min) process.stderr.write(`${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} ${msg}\n`)
  }
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  }
}
