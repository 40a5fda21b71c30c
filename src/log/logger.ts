import { createConsola, type ConsolaReporter, type LogObject } from 'consola/core'

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const
export const LOG_FORMATS = ['json', 'pretty'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export type LogFormat = (typeof LOG_FORMATS)[number]

export type LogFields = Record<string, string | number | boolean | null | undefined | readonly string[]>

export interface Logger {
  trace(msg: string, fields?: LogFields): void
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

export interface LoggerOptions {
  format: LogFormat
  level: LogLevel
  /** Where lines go; stdout by default. Tests pass a collector. */
  write?: (line: string) => void
  /**
   * Secret values that must never be printed. Call sites only log named fields and never payloads,
   * so this is the second line of defence: any exact occurrence is replaced before the line is written.
   */
  redact?: readonly string[]
}

const CONSOLA_LEVEL: Record<LogLevel, number> = { error: 0, warn: 1, info: 3, debug: 4, trace: 5 }
const LEVEL_NAME: Record<string, LogLevel> = { fatal: 'error', error: 'error', warn: 'warn', log: 'info', info: 'info', success: 'info', debug: 'debug', trace: 'trace' }

/**
 * C0 and C1 control characters, DEL and the Unicode line separators. A value from a request (a header, a
 * login) may hold them, and written raw they drive the terminal that shows the log (U+009B is a one-character
 * CSI on many) or split a line in two. JSON.stringify escapes C0 only.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/** The line with every control character as `\uXXXX`: a JSON string escape, and plain text in the pretty format. */
function escapeControls(line: string): string {
  return line.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function render(format: LogFormat, logObj: LogObject): string {
  const [msg, fields] = logObj.args as [string, LogFields | undefined]
  const level = LEVEL_NAME[logObj.type] ?? 'info'
  if (format === 'json') {
    return escapeControls(JSON.stringify({ time: logObj.date.toISOString(), level, msg, ...fields }))
  }
  const pairs = Object.entries(fields ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
  return escapeControls([logObj.date.toISOString(), level.toUpperCase().padEnd(5), msg, ...pairs].join(' '))
}

/**
 * Every secret out of a value before it is rendered (rendering escapes `"` and `\`, after which a secret
 * holding them no longer matches). A secret of 4 characters or more is replaced wherever it occurs; a shorter
 * one only where it is a whole value (replacing every `ab` in every line would destroy the log, not protect it).
 */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') {
    let text = value
    for (const secret of secrets) {
      if (secret.length >= 4) text = text.replaceAll(secret, '[redacted]')
      else if (text === secret) return '[redacted]'
    }
    return text
  }
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, secrets)]))
  }
  return value
}

export function createLogger(options: LoggerOptions): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`))
  const secrets = (options.redact ?? []).filter((s) => s.length > 0)
  const reporter: ConsolaReporter = {
    log(logObj) {
      write(render(options.format, secrets.length === 0 ? logObj : { ...logObj, args: logObj.args.map((a) => redactValue(a, secrets)) }))
    },
  }
  // throttle: 0, because consola folds repeated identical lines, and every ignored delivery must be logged.
  const consola = createConsola({ level: CONSOLA_LEVEL[options.level], reporters: [reporter], throttle: 0 })
  return {
    trace: (msg, fields) => consola.trace(msg, fields),
    debug: (msg, fields) => consola.debug(msg, fields),
    info: (msg, fields) => consola.info(msg, fields),
    warn: (msg, fields) => consola.warn(msg, fields),
    error: (msg, fields) => consola.error(msg, fields),
  }
}

/** Describes an error for a log line without its stack or any payload it might carry. */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return { error: error.message, error_code: typeof code === 'string' ? code : undefined }
  }
  return { error: String(error) }
}
