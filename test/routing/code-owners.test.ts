import { describe, expect, it } from 'vitest'
import { ownersOf, parseCodeOwners, type CodeOwnersSyntax } from '../../src/routing/code-owners.ts'

const GITHUB: CodeOwnersSyntax = { sections: false, escapedHash: false, negation: false, inlineComments: true }
const GITLAB: CodeOwnersSyntax = { sections: true, escapedHash: true, negation: true, inlineComments: false }
const BITBUCKET: CodeOwnersSyntax = { sections: false, escapedHash: false, negation: false, inlineComments: true }

// GitHub's "Example of a CODEOWNERS file" (docs.github.com, About code owners), in its order, with the
// files its comments name and the owner they say wins.
const GITHUB_EXAMPLE = `# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/* docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
`

describe('CODEOWNERS as GitHub documents it', () => {
  const file = parseCodeOwners(GITHUB_EXAMPLE, '.github/CODEOWNERS', GITHUB)
  it.each([
    ['README.md', ['@global-owner1', '@global-owner2']],
    ['src/index.js', ['@js-owner']], // the inline comment names nobody
    ['main.go', ['docs@example.com']],
    ['notes.txt', ['@octo-org/octocats']],
    ['build/logs/today.log', ['@octocat']], // build/logs is a logs directory: **/logs, later, wins
    ['build/logs/deep/x.bin', ['@octocat']],
    ['docs/getting-started.md', ['@doctocat']], // /docs/ comes after docs/*
    ['deeply/nested/logs/a.txt', ['@octocat']],
    ['scripts/deploy.sh', ['@doctocat', '@octocat']],
    ['apps/web/index.html', ['@octocat']],
    ['apps/github/index.html', []], // "its owners are left empty"
    ['lib/apps/x.rb', ['@octocat']], // apps/ "anywhere in your repository"
  ])('%s is owned by %j', (path, owners) => {
    expect(file.problems).toEqual([])
    expect(ownersOf(file, path)).toEqual(owners)
  })

  it('docs/* owns docs/getting-started.md but not docs/build-app/troubleshooting.md', () => {
    const only = parseCodeOwners('docs/* docs@example.com\n', 'CODEOWNERS', GITHUB)
    expect(ownersOf(only, 'docs/getting-started.md')).toEqual(['docs@example.com'])
    expect(ownersOf(only, 'docs/build-app/troubleshooting.md')).toEqual([])
  })

  it('paths are case sensitive', () => {
    const only = parseCodeOwners('/Docs/ @a\n', 'CODEOWNERS', GITHUB)
    expect(ownersOf(only, 'docs/x.md')).toEqual([])
    expect(ownersOf(only, 'Docs/x.md')).toEqual(['@a'])
  })

  it.each([
    ['!*.md @a', 'negation'],
    ['src/[ab].ts @a', 'character ranges'],
    ['\\#file @a', 'escaped #'],
  ])('reports the syntax it does not support (%s) instead of guessing', (line, reason) => {
    const bad = parseCodeOwners(`* @all\n${line}\n`, 'CODEOWNERS', GITHUB)
    expect(bad.problems).toEqual([expect.objectContaining({ line: 2, reason: expect.stringContaining(reason) })])
  })
})

// GitLab's "Syntax of CODEOWNERS file" example (docs.gitlab.com, user/project/codeowners/reference).
const GITLAB_EXAMPLE = `# Lines that start with # are ignored.
* @default-codeowner
*.rb @ruby-owner
\\#file_with_pound.rb @owner-file-with-pound
CODEOWNERS @multiple @code @owners
LICENSE @legal this_does_not_match janedoe@gitlab.com
README @group @group/with-nested/subgroup
/docs/ @all-docs
/docs/* @root-docs
/docs/**/*.md @root-docs
lib/ @lib-owner
/config/ @config-owner
path\\ with\\ spaces/ @space-owner

[Documentation]
ee/docs    @docs
docs       @docs

^[Database] @database
README.md
model/db/

[DOCUMENTATION]
guides/ @docs
`

describe('CODEOWNERS as GitLab documents it', () => {
  const file = parseCodeOwners(GITLAB_EXAMPLE, 'CODEOWNERS', GITLAB)
  it.each([
    ['app/models/user.rb', ['@ruby-owner']],
    ['#file_with_pound.rb', ['@owner-file-with-pound']],
    ['LICENSE', ['@legal', 'janedoe@gitlab.com']], // "Everything else is ignored"
    ['README', ['@group', '@group/with-nested/subgroup']],
    ['docs/index.md', ['@root-docs', '@docs']], // the default section's last match, and [Documentation]'s
    ['docs/projects/index.md', ['@root-docs', '@docs']], // /docs/**/*.md
    ['docs/projects/image.png', ['@all-docs', '@docs']], // /docs/* does not reach nested files
    ['src/lib/util.rb', ['@lib-owner']], // lib/ comes after *.rb: the last match wins
    ['src/util.rb', ['@ruby-owner']],
    ['config/app.yml', ['@config-owner']],
    ['nested/config/app.yml', ['@default-codeowner']], // /config/ is the root's only
    ['path with spaces/a.txt', ['@space-owner']],
    ['README.md', ['@default-codeowner', '@database']], // the section's default owners
    ['model/db/schema.sql', ['@default-codeowner', '@database']],
    ['guides/start.md', ['@default-codeowner', '@docs']], // [DOCUMENTATION] is [Documentation]
  ])('%s is owned by %j', (path, owners) => {
    expect(file.problems).toEqual([])
    expect(ownersOf(file, path).sort()).toEqual([...owners].sort())
  })

  it('a section is analysed on its own: its last match counts beside the other sections', () => {
    const two = parseCodeOwners('[Backend]\n*.rb @backend\n[Ruby]\n*.rb @ruby\n', 'CODEOWNERS', GITLAB)
    expect(ownersOf(two, 'app/a.rb').sort()).toEqual(['@backend', '@ruby'])
  })

  it('an exclusion that matches last leaves the file unowned in its section', () => {
    const excluded = parseCodeOwners('* @all\n!*.lock\n', 'CODEOWNERS', GITLAB)
    expect(ownersOf(excluded, 'yarn.lock')).toEqual([])
    expect(ownersOf(excluded, 'a.js')).toEqual(['@all'])
  })
})

describe('CODEOWNERS as Bitbucket Cloud documents it', () => {
  // "Set up and use code owners": gitignore-like, comments inline, emails and @names.
  const file = parseCodeOwners('# Im a comment!\n* individual@example.com individual2@example.com\nsrc/ @{Frontend Team} # the web team\n', '.bitbucket/CODEOWNERS', BITBUCKET)
  it('reads owners and stops at an inline comment', () => {
    expect(ownersOf(file, 'README.md')).toEqual(['individual@example.com', 'individual2@example.com'])
    expect(file.problems).toEqual([])
  })
})
