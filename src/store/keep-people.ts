import type { Logger } from '../log/logger.ts'
import type { Store } from './store.ts'

/**
 * Open messages an earlier version wrote have no people kept (migration 0051): kept once, at the first start
 * on the new schema, so that /prherald mine and the Home tab find them; later starts find none to keep.
 */
export async function keepPeople(store: Pick<Store, 'keepPeopleOfOpenMessages'>, logger: Logger): Promise<void> {
  const kept = await store.keepPeopleOfOpenMessages()
  if (kept > 0) logger.info('people of open pull requests kept', { pull_requests: kept })
}
