import type { ReactionsConfig } from './schema.ts'
import { DEFAULTS, type ReactionKey, type ReactionSettings } from './settings.ts'

const KEYS = Object.keys(DEFAULTS.reactions) as ReactionKey[]

export const DEFAULT_REACTIONS: ReactionSettings = { enabled: true, names: { ...DEFAULTS.reactions }, newPr: undefined }

/** `base` with the keys a tier sets replaced, key by key; keys the tier leaves out are inherited. */
export function applyReactionTier(base: ReactionSettings, tier: ReactionsConfig | undefined): ReactionSettings {
  if (!tier) return base
  const names = { ...base.names }
  for (const key of KEYS) names[key] = tier[key] ?? names[key]
  return { enabled: tier.enabled ?? base.enabled, names, newPr: tier.new_pr ?? base.newPr }
}

/** A mapping tier's overrides over an outer tier's (repository over the owner's "*"), still partial. */
export function mergeReactionTiers(outer: ReactionsConfig | undefined, inner: ReactionsConfig | undefined): ReactionsConfig | undefined {
  if (!outer || !inner) return inner ?? outer
  const merged: Record<string, unknown> = { ...outer }
  for (const [key, value] of Object.entries(inner)) if (value !== undefined) merged[key] = value
  return merged as ReactionsConfig
}

/**
 * The emoji names a message shows for the machine's reaction keys, in order, without duplicates (two keys
 * may share an emoji): the `new_pr` reaction first when configured, none at all when reactions are off.
 */
export function reactionNames(settings: ReactionSettings, keys: readonly ReactionKey[]): string[] {
  if (!settings.enabled) return []
  const names = keys.map((key) => settings.names[key])
  return [...new Set(settings.newPr ? [settings.newPr, ...names] : names)]
}
