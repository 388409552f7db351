/**
 * eth_simulateV1's payload decoder: errors read as encoding/json writes them for geth's
 * `ethapi.simOpts` — the innermost struct of the outer decode, then the field path from the top
 * (Go names for untagged fields, JSON tags for tagged ones, nothing for arrays and maps); soft
 * errors (wrong JSON kind for a struct, slice or bool) lose to a later hard one.
 */
import { describe, expect, it } from 'vitest'
import { SimulatePayload } from './simulate.js'
import { failure } from './testing.js'

const P = -32602
const ADDR = '0xc000000000000000000000000000000000000000'
const payload = (blockState: Record<string, unknown>) => ({ blockStateCalls: [blockState] })

describe('SimulatePayload errors (encoding/json field paths)', () => {
  it('names a call field TransactionArgs.BlockStateCalls.Calls.<tag>', () => {
    expect(failure(SimulatePayload, payload({ calls: [{ gas: '0x10000000000000000' }] }))).toBe(
      `${P} json: cannot unmarshal hex number > 64 bits into Go struct field TransactionArgs.BlockStateCalls.Calls.gas of type hexutil.Uint64`,
    )
    expect(failure(SimulatePayload, payload({ calls: [{}, { value: `0x1${'0'.repeat(64)}` }] }))).toBe(
      `${P} json: cannot unmarshal hex number > 256 bits into Go struct field TransactionArgs.BlockStateCalls.Calls.value of type *hexutil.Big`,
    )
  })

  it('names block override fields by their Go names', () => {
    expect(failure(SimulatePayload, payload({ blockOverrides: { gasLimit: 5 } }))).toBe(
      `${P} json: cannot unmarshal non-string into Go struct field BlockOverrides.BlockStateCalls.BlockOverrides.GasLimit of type hexutil.Uint64`,
    )
    // a withdrawal decodes through its own UnmarshalJSON: the outer struct is named, the path goes on
    expect(failure(SimulatePayload, payload({ blockOverrides: { withdrawals: [{ index: '0x' }] } }))).toBe(
      `${P} json: cannot unmarshal hex string "0x" into Go struct field BlockOverrides.BlockStateCalls.BlockOverrides.Withdrawals.index of type hexutil.Uint64`,
    )
    expect(failure(SimulatePayload, payload({ blockOverrides: { withdrawals: [5] } }))).toBe(
      `${P} json: cannot unmarshal number into Go struct field BlockOverrides.BlockStateCalls.BlockOverrides.Withdrawals of type types.Withdrawal`,
    )
  })

  it('names state override fields by their JSON tags; a map adds nothing to the path', () => {
    expect(failure(SimulatePayload, payload({ stateOverrides: { [ADDR]: { balance: 1 } } }))).toBe(
      `${P} json: cannot unmarshal non-string into Go struct field OverrideAccount.BlockStateCalls.StateOverrides.balance of type *hexutil.Big`,
    )
    const slot = `0x${'00'.repeat(32)}`
    expect(failure(SimulatePayload, payload({ stateOverrides: { [ADDR]: { state: { [slot]: '0x1' } } } }))).toBe(
      `${P} json: cannot unmarshal hex string of odd length into Go struct field OverrideAccount.BlockStateCalls.StateOverrides.state of type common.Hash`,
    )
    // hexutil's length error is a plain one: no context
    expect(failure(SimulatePayload, payload({ stateOverrides: { [ADDR]: { stateDiff: { [slot]: '0x01' } } } }))).toBe(
      `${P} hex string has length 2, want 64 for common.Hash`,
    )
    // a key decodes after its value, through common.Address's UnmarshalJSON
    expect(failure(SimulatePayload, payload({ stateOverrides: { c000: {} } }))).toBe(
      `${P} json: cannot unmarshal hex string without 0x prefix into Go struct field simBlock.BlockStateCalls.StateOverrides of type common.Address`,
    )
    expect(failure(SimulatePayload, payload({ stateOverrides: { '0xc0': {} } }))).toBe(
      `${P} hex string has length 2, want 40 for common.Address`,
    )
  })

  it('reports a wrong JSON kind at its place in the path, after any hard error', () => {
    expect(failure(SimulatePayload, payload({ calls: 5 }))).toBe(
      `${P} json: cannot unmarshal number into Go struct field simBlock.BlockStateCalls.Calls of type []ethapi.TransactionArgs`,
    )
    expect(failure(SimulatePayload, payload({ calls: [5] }))).toBe(
      `${P} json: cannot unmarshal number into Go struct field simBlock.BlockStateCalls.Calls of type ethapi.TransactionArgs`,
    )
    expect(failure(SimulatePayload, { blockStateCalls: [], validation: 'yes' })).toBe(
      `${P} json: cannot unmarshal string into Go struct field simOpts.Validation of type bool`,
    )
    expect(failure(SimulatePayload, { blockStateCalls: 5 })).toBe(
      `${P} json: cannot unmarshal number into Go struct field simOpts.BlockStateCalls of type []ethapi.simBlock`,
    )
    // soft, then hard in a later block: the hard one wins
    expect(
      failure(SimulatePayload, {
        validation: 1,
        blockStateCalls: [{ calls: 5 }, { calls: [{ gas: 5 }] }],
      }),
    ).toBe(
      `${P} json: cannot unmarshal non-string into Go struct field TransactionArgs.BlockStateCalls.Calls.gas of type hexutil.Uint64`,
    )
    // two soft ones: the first wins
    expect(failure(SimulatePayload, { blockStateCalls: [{ calls: 5 }], validation: 1 })).toBe(
      `${P} json: cannot unmarshal number into Go struct field simBlock.BlockStateCalls.Calls of type []ethapi.TransactionArgs`,
    )
  })
})

describe('SimulatePayload calls', () => {
  it('take the call data from input, else data, and never refuse a mismatch', () => {
    const decoded = SimulatePayload.decode(
      payload({
        calls: [
          { to: ADDR, data: '0x01', input: '0x02' },
          { to: ADDR, data: '0x03' },
        ],
      }),
    )
    expect(decoded.blockStateCalls[0]?.calls.map((c) => c.data)).toEqual([Uint8Array.of(2), Uint8Array.of(3)])
  })
})
