import type { Dialect } from '../../src/store/dialect.ts'

/**
 * The tables that grow with history (a row per pull request, delivery, reply, message, action...): a
 * statement that serves a request must never read one of them whole. Every other table is named in BOUNDED
 * with what bounds it.
 */
export const GROWING: ReadonlySet<string> = new Set([
  'slack_messages', 'deliveries', 'delivery_bodies', 'thread_replies', 'pull_request_heads', 'job_runs', 'slack_requests',
  'direct_messages', 'reply_comments', 'person_actions', 'direct_message_mutes', 'person_lookups', 'review_forms',
  'pull_request_turnaround', 'pull_request_people', 'review_assignments',
])

export const BOUNDED: Readonly<Record<string, string>> = {
  meta: 'a few settings',
  schema_migrations: 'one row per migration',
  post_intents: 'only posts in flight: a row goes when its message is stored',
  direct_message_intents: 'only intents not yet queued: the sender takes 100 at a time and deletes them',
  hook_delivery_marks: 'one row per webhook',
  pacing_budgets: 'one row per Slack method and channel kind',
  person_preferences: 'one row per person',
  slack_user_zones: 'one row per person',
  linked_accounts: 'one row per person and host',
  oauth_states: 'flows of the last ten minutes',
  person_action_gates: 'one row per person and kind',
  reminder_holds: 'one row per person an open pull request waits on: the reminder job deletes a hold once it ends',
  reminder_snoozes: 'one row per snooze of an open pull request: the reminder job deletes it once it ran out or the pull request ended',
  away_marks: 'one row per person',
  weekly_posts: 'one row per insights.weekly channel and week; each post forgets its channel\'s rows past the last few weeks',
}

export interface Index {
  name: string
  /** Its first column: a condition on a later one alone walks the whole index (a skip scan). */
  leading: string
  /** It has a WHERE: it holds only the rows that match it (pending deliveries, open intents). */
  partial: boolean
}

export interface Column {
  name: string
  numeric: boolean
}

/** What filling and planning needs of one engine. */
export interface PlanEngine {
  dialect: Dialect
  tables(): Promise<string[]>
  columns(table: string): Promise<Column[]>
  insert(sql: string, params: readonly unknown[]): Promise<void>
  indexes(): Promise<Index[]>
  plan(sql: string): Promise<string>
}

const BATCH = 200

/**
 * `rows` rows in every table: each column a value of its own per row (numbers count up, text is the column's
 * name and the row's number), so every key is unique and every index is as selective as it can be.
 */
export async function fillTables(engine: PlanEngine, rows: number): Promise<void> {
  for (const table of await engine.tables()) {
    if (table === 'schema_migrations') continue
    const columns = await engine.columns(table)
    for (let start = 0; start < rows; start += BATCH) {
      const count = Math.min(BATCH, rows - start)
      const params: unknown[] = []
      const tuples: string[] = []
      for (let i = start; i < start + count; i++) {
        tuples.push(`(${columns.map((_, c) => engine.dialect === 'postgres' ? `$${params.length + c + 1}` : '?').join(', ')})`)
        params.push(...columns.map((c) => (c.numeric ? i : `${c.name}${i}`)))
      }
      await engine.insert(`INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES ${tuples.join(', ')}`, params)
    }
  }
}

interface PostgresNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Index Cond'?: string
  Plans?: PostgresNode[]
}

/**
 * Columns with a handful of values, each of them common (the git host): a search on them alone reads a
 * growing share of the table, most of it in a deployment with one host. (A message's state is not one: the
 * open states are the few rows a search on them wants.)
 */
const FEW_VALUES: ReadonlySet<string> = new Set(['provider'])

/** SQLite's plan names a table by its alias where the statement gives one (`FROM slack_messages m`). */
function tablesByAlias(sql: string): Map<string, string> {
  const aliases = new Map<string, string>()
  for (const [, table, alias] of sql.matchAll(/\b(?:FROM|JOIN)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?/gi)) {
    if (alias && !/^(WHERE|JOIN|ON|LEFT|INNER|CROSS|USING|SET|ORDER|GROUP|LIMIT)$/i.test(alias)) aliases.set(alias, table!)
  }
  return aliases
}

/**
 * The growing tables a plan reads whole: SQLite's `SCAN table` (through the table or all of an index), skip
 * scan (`ANY(column)`) or a search on FEW_VALUES' columns alone; PostgreSQL's Seq Scan, or an index scan whose
 * condition leaves the index's first column free (none at all, or a skip scan). A scan of a partial index
 * reads only the rows its WHERE keeps (pending deliveries, open intents), which history does not grow.
 */
export function fullScans(plan: string, dialect: Dialect, indexes: readonly Index[] = [], sql = ''): string[] {
  const found = new Set<string>()
  const partial = (name: string | undefined) => indexes.some((i) => i.name === name && i.partial)
  if (dialect === 'sqlite') {
    const aliases = tablesByAlias(sql)
    for (const line of plan.split('\n')) {
      const scan = /^(SCAN|SEARCH) (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(line)
      const table = scan && (aliases.get(scan[2]!) ?? scan[2]!)
      if (!scan || !table || !GROWING.has(table) || partial(scan[3])) continue
      const searched = [.../\(([^()]*)\)$/.exec(line)?.[1]?.matchAll(/(\w+)\s*[=<>]/g) ?? []].map((m) => m[1]!)
      if (scan[1] === 'SCAN' || line.includes('ANY(') || (searched.length > 0 && searched.every((c) => FEW_VALUES.has(c)))) found.add(table)
    }
    return [...found]
  }
  const visit = (node: PostgresNode) => {
    const table = node['Relation Name']
    const type = node['Node Type']
    if (table && GROWING.has(table) && !partial(node['Index Name'])) {
      const leading = indexes.find((i) => i.name === node['Index Name'])?.leading
      const bounded = leading !== undefined && new RegExp(`\\b${leading}\\b`).test(node['Index Cond'] ?? '')
      if (type === 'Seq Scan' || (/^(Index|Index Only|Bitmap Index) Scan$/.test(type) && !bounded)) found.add(table)
    }
    // A bitmap index scan names its index but not its table: the Bitmap Heap Scan above it does.
    if (type === 'Bitmap Heap Scan' && table && GROWING.has(table)) {
      for (const child of node.Plans ?? []) if (child['Node Type'] === 'Bitmap Index Scan') visit({ ...child, 'Relation Name': table })
      return
    }
    for (const child of node.Plans ?? []) visit(child)
  }
  for (const root of JSON.parse(plan) as { Plan: PostgresNode }[]) visit(root.Plan)
  return [...found]
}
