import { PrheraldError } from '../errors.ts'
import type { GitHost } from '../hosts/contract.ts'
import { askValid } from './ask-valid.ts'
import type { Asker } from './asker.ts'
import { parseUrl } from './parse-url.ts'

export const GIT_API_URL_FLAG = '--git-api-url'

/**
 * The API base of a self-managed install (GitHub Enterprise Server), for .env: asked only of a host that has
 * one, after a yes to "is it self-managed?". The flag answers both; `--yes` without it means the cloud host.
 */
export async function askApiUrl(
  deps: { ask: Asker; interactive: boolean; print: (line: string) => void }, host: GitHost, given: string | undefined,
): Promise<string | undefined> {
  const selfManaged = host.selfManaged
  const example = selfManaged?.apiUrl ?? host.defaultApiUrl
  const fix = `give the API base URL, e.g. ${example}`
  if (given === undefined) {
    if (!selfManaged || !deps.interactive) return undefined
    const cloud = new URL(host.defaultApiUrl).hostname
    if (!(await deps.ask.confirm(`Is it ${selfManaged.name} (your own server, not ${cloud})?`, { flag: GIT_API_URL_FLAG, initial: false }))) return undefined
  }
  return askValid({
    given: given?.trim(),
    ask: () => deps.ask.text(`${selfManaged?.name ?? host.words.name} API URL, e.g. ${example}`, { flag: GIT_API_URL_FLAG, placeholder: example }),
    check: (answer) => {
      const url = parseUrl(answer.trim(), fix)
      // An empty flag means the cloud host; after a yes, an empty answer is no answer.
      if (url === undefined && given === undefined) throw new PrheraldError('usage', 'no API URL given', { fix })
      return url
    },
    retry: deps.interactive,
    print: deps.print,
  })
}
