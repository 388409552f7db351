/** The web3 namespace: client version and keccak256. */
import { keccak256 } from '../../util/crypto.js'
import { PACKAGE_VERSION } from '../../util/package.js'
import type { Backend } from '../backend.js'
import { toData } from '../../util/hex.js'
import { Data } from '../params/index.js'
import { method, type Namespace } from '../types.js'

/** geth-style client version: name/vVERSION/os-arch/runtime. */
export const CLIENT_VERSION = `ibex/v${PACKAGE_VERSION}/${process.platform}-${process.arch}/node${process.versions.node}`

export const web3Namespace: Namespace<Backend> = {
  name: 'web3',
  methods: {
    web3_clientVersion: method([], () => CLIENT_VERSION),
    web3_sha3: method([Data], (_b, [data]) => toData(keccak256(data))),
  },
}
