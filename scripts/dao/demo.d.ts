// Types of demo.js for the TypeScript tests (test/dao).
import type { Chain, DecodedError } from './client.js'

export interface DemoEpoch {
  epoch: number
  revenue: bigint
  pools: bigint[]
  carriesBefore: bigint[]
  carries: bigint[]
  rewardStakes: Map<bigint, bigint>
  credits: { seat: bigint; holder: string; amount: bigint }[]
}

export interface DemoProposal {
  against: bigint
  for: bigint
  abstain: bigint
  againstHoldings: bigint
  forHoldings: bigint
  state: string
}

export interface DemoResult {
  seats: Record<string, string>
  totalVotes: bigint
  reverts: Record<string, (DecodedError & { status?: string }) | undefined>
  proposals: Record<string, DemoProposal>
  documentsAfter: string
  epochs: DemoEpoch[]
  claims: Record<string, { owed: bigint; paid: bigint }>
  resale: { seat: bigint; buyer: string; firstRefusal: boolean; votesBefore: bigint[]; votesAfter: bigint[] }
}

export function runDemo(opts: { chain: Chain; log?: (line: string) => void }): Promise<DemoResult>
export function coins(wei: bigint): string
