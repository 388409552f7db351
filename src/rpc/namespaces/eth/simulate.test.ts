/**
 * eth_simulateV1's answer to a simulation refused as a whole: geth's code and words, -32603
 * included (txValidationError's default for a message refusal it has no code for). Such an
 * answer is not a failure of the node: the dispatcher must not report it as one.
 */
import { describe, expect, it } from 'vitest'
import { SIM_ERROR, SimulationError } from '../../../simulate/errors.js'
import { RpcDispatcher } from '../../server/dispatch.js'
import { chainOf, fakeBackend, testBlock } from '../testing.js'
import { ethNamespace } from './index.js'

function dispatcher(refusal: SimulationError, reported: unknown[]) {
  const backend = fakeBackend({
    ...chainOf([testBlock(0n)]),
    simulate: async () => {
      throw refusal
    },
  })
  return new RpcDispatcher({
    namespaces: [ethNamespace],
    enabledApis: ['eth'],
    ctx: backend,
    maxBatchItems: 0,
    onInternalError: (err) => reported.push(err),
  })
}

const request = { jsonrpc: '2.0' as const, id: 1, method: 'eth_simulateV1', params: [{ blockStateCalls: [{}] }] }

describe('eth_simulateV1 refusals', () => {
  it('answers a -32603 refusal with its words, and reports nothing', async () => {
    const reported: unknown[] = []
    const why = 'err: blob transaction missing blob hashes (supplied gas 100000)'
    const answer = await dispatcher(new SimulationError(SIM_ERROR.internal, why), reported).handleMessage(request)
    expect(answer?.error).toEqual({ code: -32603, message: why })
    expect(reported).toEqual([])
  })

  it('answers the other refusals with their codes', async () => {
    const reported: unknown[] = []
    const why = 'block gas limit reached: remaining: 1000000, required: 2000000'
    const answer = await dispatcher(new SimulationError(SIM_ERROR.blockGasLimitReached, why), reported).handleMessage(
      request,
    )
    expect(answer?.error).toEqual({ code: -38015, message: why })
    expect(reported).toEqual([])
  })
})
