import { errorFields, type Logger } from './log/logger.ts'

/** Stops a part by `deadline` (unix ms): what it still holds is finished or handed on by then. */
export type StopPart<T> = (part: T, deadline: number) => unknown

export interface ServiceParts {
  /**
   * Starts one part (awaits `start`) and records it with its stop. A start that fails stops every part started
   * before it, last first, and rethrows: a failed start keeps no port bound and no file claimed.
   */
  start<T>(name: string, start: () => T | Promise<T>, stop?: StopPart<T>): Promise<T>
  /** A start-up step that is no part (nothing to stop); its failure stops the parts started so far, as `start`'s does. */
  step<T>(name: string, run: () => Promise<T>): Promise<T>
  /** The parts' names in start order (what the service is made of). */
  names(): string[]
  /** Stops every started part, the last started first, each by `deadline`; a stop that fails is logged and the next one still stops. */
  stop(deadline: number): Promise<void>
}

/**
 * The composition root's list of parts. Each part is started after the parts it uses and stopped before them
 * (the reverse of the start order), so the shutdown drain and a failed start read from the same list.
 * Logged at debug: `part started` and `part stopped`, each with its name.
 */
export function createServiceParts(logger: Logger): ServiceParts {
  const started: Array<{ name: string; stop: (deadline: number) => Promise<void> }> = []
  let stopping: Promise<void> | undefined

  const stop = (deadline: number) => (stopping ??= (async () => {
    for (const part of started.toReversed()) {
      await part.stop(deadline).catch((error: unknown) => logger.error('a part failed to stop', { part: part.name, ...errorFields(error) }))
      logger.debug('part stopped', { part: part.name })
    }
  })())
  const abandon = async (name: string, error: unknown): Promise<never> => {
    logger.debug('start failed; stopping what started', { part: name })
    await stop(Date.now())
    throw error
  }

  return {
    async start(name, start, stopPart) {
      const part = await Promise.resolve().then(start).catch((error: unknown) => abandon(name, error))
      started.push({ name, stop: async (deadline) => { await stopPart?.(part, deadline) } })
      logger.debug('part started', { part: name })
      return part
    },
    step: (name, run) => run().catch((error: unknown) => abandon(name, error)),
    names: () => started.map((part) => part.name),
    stop,
  }
}
