/**
 * Heap used plus external memory of a running prherald, in MiB, read from its `GET /metrics` (the process
 * metrics every scrape collects): the figure issue 25's idle target is stated in, from outside the process.
 */
export async function memoryInUseMiB(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text()
  const gauge = (name: string) => {
    const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]
    if (value === undefined) throw new Error(`${metricsUrl} has no ${name}`)
    return Number(value)
  }
  return (gauge('nodejs_heap_size_used_bytes') + gauge('nodejs_external_memory_bytes')) / (1024 * 1024)
}
