import { PassThrough } from 'node:stream'
import { stripVTControlCharacters } from 'node:util'

export const KEY = { enter: '\r', down: '\x1b[B', ctrlC: '\x03' } as const

export interface FakeTerminal {
  /** What the program reads: the keys typed. */
  input: PassThrough
  /** What the program writes: the screen, prompts and printed lines alike. */
  output: PassThrough
  /** Everything written so far, escape sequences included (what a scrollback or a recording keeps). */
  written(): string
  /** The text of the screen, without escape sequences. */
  screen(): string
  /** Waits for `text` to appear on the screen after what the previous wait found. */
  waitFor(text: string): Promise<void>
  /** Waits for the question `question` to be asked (drawn as the active prompt), then types `keys`. */
  answer(question: string, keys: string): Promise<void>
}

/** clack draws the question being asked after ◆ (* where the terminal has no Unicode); an answered one after ◇. */
const ACTIVE = ['◆  ', '*  ']

/**
 * A terminal for the prompts as plain streams: the test types keys into the input after the question it
 * expects has been drawn, as a person would, and reads what the program drew. No pseudo-terminal, so
 * no system tool; the prompts (@clack/prompts) work on any stream and write the same bytes.
 */
export function fakeTerminal(timeoutMs = 10_000): FakeTerminal {
  const input = new PassThrough()
  const output = new PassThrough()
  let written = ''
  let seen = 0
  output.on('data', (chunk: Buffer) => { written += chunk.toString('utf8') })
  const screen = () => stripVTControlCharacters(written)
  async function waitFor(text: string, prefixes = ['']): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = prefixes.map((p) => screen().indexOf(p + text, seen)).filter((at) => at >= 0)
      if (found.length > 0) {
        seen = Math.min(...found) + text.length
        return
      }
      if (Date.now() > deadline) throw new Error(`"${text}" never appeared; the screen since the last answer:\n${screen().slice(seen)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  return {
    input,
    output,
    written: () => written,
    screen,
    waitFor,
    async answer(question, keys) {
      await waitFor(question, ACTIVE)
      input.write(keys)
    },
  }
}
