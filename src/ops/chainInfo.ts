/**
 * `ibex chain-info`: the parameters wallets and chain registries need, from the configuration
 * (the spec leaves URLs and the token symbol open, so they come from `[chain]`):
 *
 *   registry               the chain-registry entry (ethereum-lists/chains `eip155-<id>.json`):
 *                          name, chain, rpc, faucets, nativeCurrency, infoURL, shortName, chainId,
 *                          networkId, explorers
 *   wallet_addEthereumChain the EIP-3085 parameter object a dapp passes to the wallet
 *
 * deploy/chains/ holds both for mainnet and testnet, generated from deploy/config/*.toml (a test
 * checks they match).
 */
import { readFileSync } from 'node:fs'

import { NETWORK_CHAIN_IDS } from '../config/defaults.js'
import type { IbexConfig } from '../config/types.js'

/** Decimals of the native token (18, as every EVM chain: wallets assume it). */
export const NATIVE_DECIMALS = 18

export interface NativeCurrency {
  name: string
  symbol: string
  decimals: number
}

export interface ChainRegistryEntry {
  name: string
  chain: string
  rpc: string[]
  faucets: string[]
  nativeCurrency: NativeCurrency
  infoURL: string
  shortName: string
  chainId: number
  networkId: number
  explorers: { name: string; url: string; standard: 'EIP3091' }[]
}

/** EIP-3085 `wallet_addEthereumChain` parameters. */
export interface AddEthereumChainParameter {
  chainId: string
  chainName: string
  nativeCurrency: NativeCurrency
  rpcUrls: string[]
  blockExplorerUrls: string[]
}

export interface ChainInfo {
  registry: ChainRegistryEntry
  wallet_addEthereumChain: AddEthereumChainParameter
  /** Settings still unset, named for the operator. */
  missing: string[]
}

/** The chain id the config runs: the genesis file's, else the preset's. */
export function configuredChainId(config: IbexConfig): number {
  if (config.genesisFile === undefined) return NETWORK_CHAIN_IDS[config.network]
  const genesis = JSON.parse(readFileSync(config.genesisFile, 'utf8')) as { config?: { chainId?: number } }
  const id = genesis.config?.chainId
  if (typeof id !== 'number') throw new Error(`${config.genesisFile}: no config.chainId`)
  return id
}

/**
 * A dev chain without `[chain] rpc_urls` is the local node itself: its own HTTP and WebSocket URL
 * (loopback when it binds every interface). Public networks name theirs in the config.
 */
function devRpcUrls(config: IbexConfig): string[] {
  if (config.network !== 'dev' || config.genesisFile !== undefined || config.jsonrpc.port === 0) return []
  const host = config.jsonrpc.host === '0.0.0.0' || config.jsonrpc.host === '::' ? '127.0.0.1' : config.jsonrpc.host
  const authority = host.includes(':') ? `[${host}]:${config.jsonrpc.port}` : `${host}:${config.jsonrpc.port}`
  return [`http://${authority}`, `ws://${authority}`]
}

/** chainInfo builds both parameter sets from the configuration. */
export function chainInfo(config: IbexConfig, chainId = configuredChainId(config)): ChainInfo {
  const c = config.chain
  const nativeCurrency = { name: c.tokenName, symbol: c.tokenSymbol, decimals: NATIVE_DECIMALS }
  const rpcUrls = c.rpcUrls.length > 0 ? c.rpcUrls : devRpcUrls(config)
  const httpRpc = rpcUrls.filter((u) => u.startsWith('http'))
  const missing: string[] = []
  if (rpcUrls.length === 0) missing.push('[chain] rpc_urls')
  if (c.explorerUrl === '') missing.push('[chain] explorer_url')
  if (c.infoUrl === '') missing.push('[chain] info_url')
  return {
    registry: {
      name: c.name,
      chain: c.tokenSymbol,
      rpc: [...rpcUrls],
      faucets: [...c.faucetUrls],
      nativeCurrency,
      infoURL: c.infoUrl,
      shortName: c.shortName,
      chainId,
      networkId: chainId,
      explorers: c.explorerUrl === '' ? [] : [{ name: `${c.name} explorer`, url: c.explorerUrl, standard: 'EIP3091' }],
    },
    wallet_addEthereumChain: {
      chainId: `0x${chainId.toString(16)}`,
      chainName: c.name,
      nativeCurrency,
      rpcUrls: httpRpc,
      blockExplorerUrls: c.explorerUrl === '' ? [] : [c.explorerUrl],
    },
    missing,
  }
}
