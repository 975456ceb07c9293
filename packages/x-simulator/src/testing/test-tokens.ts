import { DEFAULT_APP_TOKEN, DEFAULT_USER_TOKEN } from '../simulator-options';

/** The app-only bearer token a simulator accepts unless `appTokens` says otherwise. */
export const APP_TOKEN = DEFAULT_APP_TOKEN;
/** The user-context token a simulator accepts unless `userTokens` says otherwise (liking users need one). */
export const USER_TOKEN = DEFAULT_USER_TOKEN;

/** Headers of a request made with {@link APP_TOKEN}, for supertest's `.set()`. */
export const APP_HEADERS = { Authorization: `Bearer ${APP_TOKEN}` };
/** Headers of a request made with {@link USER_TOKEN}. */
export const USER_HEADERS = { Authorization: `Bearer ${USER_TOKEN}` };
