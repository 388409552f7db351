/** The load balancer of the Piscina-backed lanes (lane.ts; the node's trace lane, one message a worker). */
import type { Piscina } from 'piscina'

type LoadBalancer = NonNullable<NonNullable<ConstructorParameters<typeof Piscina>[0]>['loadBalancer']>

/**
 * Piscina's balancer for a lane whose workers hold `depth` messages each: the least busy worker
 * with room. Piscina's default hands a message that carries an abort signal (all of the lane's)
 * only to a worker with nothing at all, so a worker held one message whatever the depth: the call
 * lane, when it ran on Piscina, had main thread and worker take turns, each idle half the time
 * under load (2026-11-28 profile, distinct eth_calls; the call lane has its own ring since). Aborting a message still terminates its worker; the messages
 * queued behind it on that worker fail with Piscina's thread-termination error, and the lane
 * refuses their tasks busy (Lane #failure).
 */
export function pipelineBalancer(depth: number): LoadBalancer {
  return (_task, workers) => {
    let best: (typeof workers)[number] | null = null
    let least = depth
    for (const w of workers) {
      if (w.terminating) continue
      // Piscina reports a worker holding one abortable message as Infinity: it is one message
      const usage = w.currentUsage === Number.POSITIVE_INFINITY ? 1 : w.currentUsage
      if (usage < least) {
        best = w
        least = usage
      }
    }
    return best
  }
}
