export { ingestIndexerEvents } from './ingest-indexer-events';
