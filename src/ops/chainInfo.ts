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

/** chainInfo builds both parameter sets from the configuration. */
export function chainInfo(config: IbexConfig, chainId = configuredChainId(config)): ChainInfo {
  const c = config.chain
  const nativeCurrency = { name: c.tokenName, symbol: c.tokenSymbol, decimals: NATIVE_DECIMALS }
  const httpRpc = c.rpcUrls.filter((u) => u.startsWith('http'))
  const missing: string[] = []
  if (c.rpcUrls.length === 0) missing.push('[chain] rpc_urls')
  if (c.explorerUrl === '') missing.push('[chain] explorer_url')
  if (c.infoUrl === '') missing.push('[chain] info_url')
  return {
    registry: {
      name: c.name,
      chain: c.tokenSymbol,
      rpc: [...c.rpcUrls],
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
