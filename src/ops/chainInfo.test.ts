import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../config/defaults.js'
import { chainInfo } from './chainInfo.js'

describe('chainInfo', () => {
  it("names the local node's URLs for a dev chain without [chain] rpc_urls", () => {
    const config = defaultConfig('dev')
    config.jsonrpc.port = 9545
    const info = chainInfo(config)
    expect(info.registry.rpc).toEqual(['http://127.0.0.1:9545', 'ws://127.0.0.1:9545'])
    expect(info.wallet_addEthereumChain.rpcUrls).toEqual(['http://127.0.0.1:9545'])
    expect(info.missing).not.toContain('[chain] rpc_urls')
    config.jsonrpc.host = '0.0.0.0'
    expect(chainInfo(config).wallet_addEthereumChain.rpcUrls).toEqual(['http://127.0.0.1:9545'])
  })

  it('leaves rpc_urls of a public network to the config, and says they are missing', () => {
    const info = chainInfo(defaultConfig('testnet'))
    expect(info.registry.rpc).toEqual([])
    expect(info.missing).toContain('[chain] rpc_urls')
    const named = defaultConfig('dev')
    named.chain.rpcUrls = ['https://rpc.example.org']
    expect(chainInfo(named).wallet_addEthereumChain.rpcUrls).toEqual(['https://rpc.example.org'])
  })
})
