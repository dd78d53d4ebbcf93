// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the
// Reflect metadata polyfill loaded first; ESM evaluates imports in order, so every user of
// the library imports it from here.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export { x509 };
