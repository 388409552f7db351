/** Types of abi.js (browser code, plain JavaScript) for the TypeScript that tests it. */
export interface AbiParam {
  name?: string
  type: string
  indexed?: boolean
  components?: AbiParam[]
}
export interface KnownEntry {
  id: string
  kind: 'function' | 'event' | 'error'
  source: string
  signature: string
  inputs: AbiParam[]
  outputs?: AbiParam[]
}
export interface Decoded {
  entry: KnownEntry
  values: unknown[]
}
export function hexToBytes(hex: string): Uint8Array
export function decodeParams(params: AbiParam[], hex: string): unknown[] | undefined
export function encodeCall(selector: string, types: string[], args: unknown[]): string
export function decodeIbftExtra(
  extraData: string,
): { validators: number; hasProposerSeal: boolean; committedSeals: number; parentCommittedSeals: number; round: bigint } | undefined
export class AbiBook {
  constructor(known: { entries: KnownEntry[] })
  decodeCall(input: string, kind?: 'function' | 'error'): Decoded | undefined
  decodeError(data: string): Decoded | undefined
  decodeLog(log: { topics: string[]; data: string }): Decoded | undefined
}
