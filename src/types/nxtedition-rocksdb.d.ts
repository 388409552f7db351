// Minimal typings for @nxtedition/rocksdb (the package ships none). Only what ibex uses.
declare module '@nxtedition/rocksdb' {
  export interface RocksChainedBatch {
    put(key: Buffer, value: Buffer, options?: object): this
    del(key: Buffer, options?: object): this
    write(options?: object): Promise<void>
  }
  export class RocksLevel {
    constructor(locationOrHandle: string | object, options?: object)
    open(options?: object): Promise<void>
    close(): Promise<void>
    batch(): RocksChainedBatch
    /** Deletes every key in range (all of `column` without bounds: one DeleteRange). */
    clear(options?: object): Promise<void>
    get status(): string
    get handle(): object
    get location(): string
    getProperty(property: string): string
  }
}
