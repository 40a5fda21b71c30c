import type { H3Config } from 'h3'
import { errorFields, type Logger } from '../log/logger.ts'
import { clientErrorResponse, errorResponse } from './respond.ts'

/** An h3 app's `onError`: h3's own HTTP errors (404 for an unknown route) keep their status, in our body's shape; anything else is a logged 500. */
export function answerAppError(logger: Logger): NonNullable<H3Config['onError']> {
  return (error, event) => {
    if (error.status < 500) return clientErrorResponse(error, event)
    logger.error('unhandled request error', { kind: error.name, ...errorFields(error), status: error.status })
    return errorResponse(error)
  }
}
