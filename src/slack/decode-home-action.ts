import { HOSTS } from '../hosts/registry.ts'
import { at, str } from '../read-fields.ts'

/** The home tab's buttons (publish-home.ts), by `action_id`. */
export const HOME_ACTIONS = {
  directMessagesOn: 'prherald_home_dm_on',
  directMessagesOff: 'prherald_home_dm_off',
  unmute: 'prherald_home_unmute',
} as const

const IDS: ReadonlySet<string> = new Set(Object.values(HOME_ACTIONS))
export const isHomeAction = (actionId: string | undefined): boolean => actionId !== undefined && IDS.has(actionId)

/** What a click in the home tab asks for: the person's own preference, stored as `/prherald` stores it. */
export type HomeChange = { kind: 'direct_messages'; value: 'on' | 'off' } | { kind: 'unmute'; prKey: string }

export interface HomeClick {
  /** Who clicked (`user.id`). */
  user: string
  /** Whose home tab it is: the `private_metadata` prherald published the view with. */
  owner: string
  change: HomeChange
}

/** A pull request's key as a mute stores it (pullRequestKey): `github:acme/api#42`, owners may nest. */
const PR_KEY = /^([a-z][a-z0-9-]{0,30}):[^#\s]+\/[^/#\s]+#\d{1,9}$/

/** The view's `private_metadata` as publish-home.ts writes it: `{"owner":"U…"}`. */
export const homeMetadata = (owner: string): string => JSON.stringify({ owner })

function ownerOf(view: unknown): string | undefined {
  try {
    return str(JSON.parse(str(view, 'private_metadata') ?? '') as unknown, 'owner')
  } catch {
    return undefined
  }
}

/**
 * A home-tab button click of a `block_actions` payload (its `view.type` is `home`), or why it is not one.
 * Pure; the route checks the workspace, and that the clicker owns the view, before acting on it.
 */
export function decodeHomeAction(payload: unknown, action: unknown, slackUser: RegExp): HomeClick | 'not_in_a_home_tab' | 'invalid_payload' {
  if (str(payload, 'container', 'type') !== 'view' || str(payload, 'view', 'type') !== 'home') return 'not_in_a_home_tab'
  const user = str(payload, 'user', 'id') ?? ''
  const owner = ownerOf(at(payload, 'view')) ?? ''
  if (!slackUser.test(user) || !slackUser.test(owner)) return 'invalid_payload'
  const id = str(action, 'action_id')
  if (id === HOME_ACTIONS.unmute) {
    const prKey = str(action, 'value') ?? ''
    const host = PR_KEY.exec(prKey)?.[1]
    return host && HOSTS.has(host) ? { user, owner, change: { kind: 'unmute', prKey } } : 'invalid_payload'
  }
  return { user, owner, change: { kind: 'direct_messages', value: id === HOME_ACTIONS.directMessagesOn ? 'on' : 'off' } }
}
