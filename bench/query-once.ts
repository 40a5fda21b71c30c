import pg from 'pg'

/** Runs one statement on a connection of its own (a bench's look at the database from outside prherald). */
export async function queryOnce<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(text, params)).rows
  } finally {
    await client.end()
  }
}
