export { relayIntent } from './relay-intent';
