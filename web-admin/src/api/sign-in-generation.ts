import { createContext } from 'react';

/**
 * Counts the sign-ins of this page's life. A load that failed because the session had ended
 * (a 401) is tried again when it changes, so the page under the "signed in again" dialog
 * shows its data instead of the error it got while nobody was signed in.
 */
export const SignInGeneration = createContext(0);
