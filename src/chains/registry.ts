import fs from 'node:fs';
import { getAddress, isAddress } from 'viem';
import defaults from './registry.json';

/** Settlement layers the published clients know (shared-configs' eight plus the SDK's own two). */
export const SETTLEMENT_LAYERS = [
  'ACROSS',
  'ECO',
  'RELAY',
  'OFT',
  'NEAR',
  'RHINO',
  'CCTP',
  'LZ',
  'SAME_CHAIN',
  'INTENT_EXECUTOR',
] as const;
export type SettlementLayer = (typeof SETTLEMENT_LAYERS)[number];

export interface TokenInfo {
  symbol: string;
  address: `0x${string}`;
  decimals: number;
  settlementLayers: SettlementLayer[];
}
export interface ChainInfo {
  id: number;
  name: string;
  caip2: string;
  testnet: boolean;
  nativeCurrency: { symbol: string; decimals: number };
  settlementLayers: SettlementLayer[];
  tokens: TokenInfo[];
}

interface RawToken {
  symbol: string;
  address: string;
  decimals: number;
  settlementLayers?: string[];
}
interface RawChain {
  id: number;
  name: string;
  testnet: boolean;
  nativeCurrency: { symbol: string; decimals: number };
  settlementLayers: string[];
  tokens: RawToken[];
}
interface RawRegistry {
  version: string;
  chains: RawChain[];
}

export const toCaip2 = (chainId: number): string => `eip155:${chainId}`;

export function fromCaip2(value: string): number | undefined {
  const m = /^eip155:([1-9][0-9]{0,14})$/.exec(value);
  return m ? Number(m[1]) : undefined;
}

function layers(raw: string[], where: string): SettlementLayer[] {
  for (const l of raw)
    if (!(SETTLEMENT_LAYERS as readonly string[]).includes(l))
      throw new Error(`${where}: unknown settlement layer ${l}`);
  return raw as SettlementLayer[];
}

export class ChainRegistry {
  readonly version: string;
  readonly chains: ChainInfo[];
  private readonly byId = new Map<number, ChainInfo>();
  private readonly tokenIndex = new Map<string, TokenInfo>();

  constructor(raw: RawRegistry) {
    this.version = raw.version;
    this.chains = raw.chains.map((c) => {
      // Same-chain and intent-executor settlement are local to a chain, so every chain allows them.
      const chainLayers = [
        ...layers(c.settlementLayers, `chain ${c.id}`),
        'SAME_CHAIN',
        'INTENT_EXECUTOR',
      ] as SettlementLayer[];
      const tokens = c.tokens.map((t) => {
        if (!isAddress(t.address, { strict: false })) throw new Error(`chain ${c.id}: bad token address ${t.address}`);
        return {
          symbol: t.symbol,
          address: getAddress(t.address.toLowerCase()),
          decimals: t.decimals,
          settlementLayers: t.settlementLayers ? layers(t.settlementLayers, `chain ${c.id} ${t.symbol}`) : chainLayers,
        };
      });
      return {
        id: c.id,
        name: c.name,
        caip2: toCaip2(c.id),
        testnet: c.testnet,
        nativeCurrency: c.nativeCurrency,
        settlementLayers: chainLayers,
        tokens,
      };
    });
    for (const chain of this.chains) {
      this.byId.set(chain.id, chain);
      for (const t of chain.tokens) this.tokenIndex.set(`${chain.id}:${t.address.toLowerCase()}`, t);
    }
  }

  chain(id: number): ChainInfo | undefined {
    return this.byId.get(id);
  }

  token(chainId: number, address: string): TokenInfo | undefined {
    return this.tokenIndex.get(`${chainId}:${address.toLowerCase()}`);
  }

  tokenBySymbol(chainId: number, symbol: string): TokenInfo | undefined {
    return this.byId.get(chainId)?.tokens.find((t) => t.symbol.toLowerCase() === symbol.toLowerCase());
  }
}

/** The shipped registry, or the file named by CHAIN_REGISTRY_FILE (same format) when an operator overrides it. */
export function loadChainRegistry(file?: string): ChainRegistry {
  const raw: RawRegistry = file ? JSON.parse(fs.readFileSync(file, 'utf8')) : defaults;
  return new ChainRegistry(raw);
}
