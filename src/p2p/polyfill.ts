/**
 * Promise.withResolvers (ES2024) for Node 20: libp2p 3 calls it and Node only has it from 22.
 * Imported for its side effect before any libp2p module (ESM evaluates imports in order).
 */
interface WithResolvers {
  withResolvers?: <T>() => { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void }
}

const P = Promise as unknown as WithResolvers
if (typeof P.withResolvers !== 'function') {
  P.withResolvers = <T>() => {
    let resolve!: (v: T) => void
    let reject!: (e: unknown) => void
    const promise = new Promise<T>((res, rej) => {
      resolve = res
      reject = rej
    })
    return { promise, resolve, reject }
  }
}

export {}
