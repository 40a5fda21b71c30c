/**
 * What a control command answers: the lines the CLI prints on stdout, the exit status it ends with, and,
 * when the command failed, the error to report as the CLI would (message and fix, never a stack).
 */
export interface ControlResponse {
  lines: string[]
  exitCode: number
  error?: { message: string; fix: string | undefined }
}

/** Runs one command inside the server; `body` is the request's JSON as sent, for the handler to validate. */
export type ControlHandler = (body: unknown) => Promise<ControlResponse>
