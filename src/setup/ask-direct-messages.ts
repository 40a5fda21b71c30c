import { DIRECT_MESSAGES } from '../config/schema.ts'
import { DEFAULTS, type DirectMessagesSetting } from '../config/settings.ts'
import { PrheraldError } from '../errors.ts'
import { askValid } from './ask-valid.ts'
import type { Asker } from './asker.ts'

export const DIRECT_MESSAGES_FLAG = '--direct-messages'

function parseDirectMessages(answer: string): DirectMessagesSetting {
  const value = answer.trim()
  const known = DIRECT_MESSAGES.find((setting) => setting === value)
  if (known) return known
  throw new PrheraldError('usage', `"${answer}" is not a direct-messages setting`, { fix: `use ${DIRECT_MESSAGES_FLAG} ${DIRECT_MESSAGES.join(', ')}` })
}

/**
 * notify.direct_messages (docs/notifications.md), asked with the default first; `--yes` takes the flag or
 * the default. With opt_in the operator learns at once what people need to opt in, which setup does not set.
 */
export async function askDirectMessages(
  deps: { ask: Asker; interactive: boolean; print: (line: string) => void }, given: string | undefined,
): Promise<DirectMessagesSetting> {
  const answer = await askValid({
    given: given ?? (deps.interactive ? undefined : DEFAULTS.directMessages),
    ask: () => deps.ask.select('Direct messages to people about their own pull requests and review requests?', {
      flag: DIRECT_MESSAGES_FLAG,
      initial: DEFAULTS.directMessages,
      choices: [
        { value: 'opt_in', label: 'opt_in: to those who turn them on (/prherald dm on, the home tab, or users:)' },
        { value: 'on', label: 'on: to everyone mapped in users:, who may turn them off' },
        { value: 'off', label: 'off: to nobody' },
      ],
    }),
    check: parseDirectMessages,
    retry: deps.interactive,
    print: deps.print,
  })
  if (answer === 'opt_in') {
    deps.print('note: people opt in with /prherald dm on or the home tab, which need SLACK_SIGNING_SECRET and the Slack app of docs/slack-app.md, or with direct_messages: on in users:')
  }
  return answer
}
