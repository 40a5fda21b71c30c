import { PrheraldError } from '../errors.ts'

/** An http(s) URL without its trailing slashes; an empty answer is none. Else a usage error with `fix`. */
export function parseUrl(answer: string, fix: string): string | undefined {
  if (answer === '') return undefined
  if (!/^https?:\/\/[^\s/]+/.test(answer)) throw new PrheraldError('usage', `"${answer}" is not a URL`, { fix })
  return answer.replace(/\/+$/, '')
}
