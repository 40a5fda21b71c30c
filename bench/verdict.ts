import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../src/package-root.ts'

/** The bench's targets, stored in the repository (bench/targets.json) so a change to them is reviewed. */
export interface BenchTargets {
  throughputVsBare: number
  ackP99VsBare: number
  cpuVsBare: number
  startMiB: number
  growthMiB: number
  /** Heap used plus external memory, 30 s after the burst's end, above what it was at start. */
  idleAboveStartMiB: number
  /** PostgreSQL: CPU per delivery (replicas and server together) of three replicas over one replica's. */
  replicaCpuVsOne: number
}

export function benchTargets(): BenchTargets {
  return (JSON.parse(readFileSync(join(packageRoot(), 'bench/targets.json'), 'utf8')) as { bench: BenchTargets }).bench
}

export interface BenchFigures {
  throughputVsBare?: number
  ackP99VsBare?: number
  cpuVsBare?: number
  startMiB?: number
  growthMiB?: number
  idleAboveStartMiB?: number
  replicaCpuVsOne?: number
}

/**
 * One line: each figure this run measured against its target, and `MET` only when every one measured is met.
 * A figure the run did not measure (BENCH_ONLY) is left out, not counted as met.
 */
export function verdictLine(figures: BenchFigures, targets: BenchTargets = benchTargets()): string {
  const checks: Array<[string, number | undefined, number, 'min' | 'max', string]> = [
    ['throughput / bare', figures.throughputVsBare, targets.throughputVsBare, 'min', ''],
    ['ack p99 / bare', figures.ackP99VsBare, targets.ackP99VsBare, 'max', ''],
    ['CPU per delivery / bare', figures.cpuVsBare, targets.cpuVsBare, 'max', ''],
    ['RSS after start', figures.startMiB, targets.startMiB, 'max', ' MiB'],
    ['burst growth', figures.growthMiB, targets.growthMiB, 'max', ' MiB'],
    ['heap used + external once idle, above start', figures.idleAboveStartMiB, targets.idleAboveStartMiB, 'max', ' MiB'],
    ['PostgreSQL CPU per delivery, replicas / 1 replica', figures.replicaCpuVsOne, targets.replicaCpuVsOne, 'max', ''],
  ]
  const measured = checks.filter((c) => c[1] !== undefined && Number.isFinite(c[1]))
  const met = (c: (typeof checks)[number]) => (c[3] === 'min' ? c[1]! >= c[2] : c[1]! <= c[2])
  const parts = measured.map((c) => `${c[0]} ${c[1]!.toFixed(2)}${c[4]} (${c[3] === 'min' ? '>=' : '<='} ${c[2]}${c[4]}) ${met(c) ? 'ok' : 'MISSED'}`)
  const all = measured.length > 0 && measured.every(met)
  return `verdict: ${all ? 'MET' : 'NOT MET'}: ${parts.join('; ') || 'nothing measured'}`
}
