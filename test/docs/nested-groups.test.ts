import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readConfigDocument } from '../../src/config/load-config.ts'
import { parseRepository } from '../../src/config/parse-repository.ts'
import { gitlab } from '../../src/hosts/gitlab/index.ts'
import { packageRoot } from '../../src/package-root.ts'
import { resolveRoute } from '../../src/routing/resolve-route.ts'
import { mergeRequestHook } from '../helpers/gitlab-fixtures.ts'
import { makeTempDir } from '../helpers/temp-dir.ts'

/**
 * The nested-group example of the GitLab docs: the block starting `# config.yaml (nested groups)` loads, and
 * each row of the table after it is where a GitLab delivery of that project is routed (and where the command
 * line's `group/subgroup/project` points), so the docs say what prherald does.
 */
const documents = ['docs/gitlab.md', 'docs/configuration.md']

describe.each(documents)('the nested-group example in %s', (file) => {
  let dir: ReturnType<typeof makeTempDir>
  beforeEach(() => { dir = makeTempDir() })
  afterEach(() => dir.remove())

  const text = readFileSync(join(packageRoot(), file), 'utf8')
  const match = /```yaml\n(# config\.yaml \(nested groups\)\n[\s\S]*?)```\n+([\s\S]*?)\n\n/.exec(text)
  const rows = (match?.[2] ?? '').split('\n').filter((l) => /^\| `[^`]+` \|/.test(l)).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()))

  it('is there, with a routing table reaching into a subgroup', () => {
    expect(match, 'a block starting "# config.yaml (nested groups)" followed by its table').not.toBeNull()
    expect(rows.filter(([project]) => (project ?? '').split('/').length > 3)).not.toEqual([])
  })

  it('loads, and routes each project of its table as the table says', () => {
    const path = join(dir.path, 'config.yaml')
    writeFileSync(path, match?.[1] ?? '')
    const config = readConfigDocument(path)
    expect(config.git_provider).toBe('gitlab')
    for (const [cell = '', channelCell = ''] of rows) {
      const project = cell.replaceAll('`', '')
      const delivery = gitlab.delivery.decode('Merge Request Hook', `d-${project}`, mergeRequestHook('open', { iid: 1, project }))
      expect(delivery, project).toMatchObject(parseRepository(project))
      const { owner, repo } = delivery as { owner: string; repo: string }
      const channel = /`([CGD][A-Z0-9]+)`/.exec(channelCell)?.[1]
      expect(resolveRoute(config.mappings ?? {}, owner, repo)?.targets.map((t) => t.channel) ?? [], project).toEqual(channel ? [channel] : [])
    }
  })
})
