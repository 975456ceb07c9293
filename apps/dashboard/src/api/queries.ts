import { useQuery } from '@tanstack/react-query';
import { api } from './client';

/** The account, its plan's limits and 2FA state. */
export const useMe = () => useQuery({ queryKey: ['me'], queryFn: () => api.get('/v1/me') });
// Usage and scan health change as the workers run: refetched every 30 s while a page shows them.
const LIVE = 30_000;

/** Usage of the period against every limit, and alerts per day. */
export const useUsage = () => useQuery({ queryKey: ['usage'], queryFn: () => api.get('/v1/usage'), refetchInterval: LIVE });
export const useTracks = () => useQuery({ queryKey: ['tracks'], queryFn: () => api.get('/v1/tracks'), refetchInterval: LIVE });
export const useAccountTracks = () => useQuery({ queryKey: ['accounts'], queryFn: () => api.get('/v1/accounts'), refetchInterval: LIVE });
/** Read again on every visit: the editor starts from it, and a PUT replaces the whole configuration. */
export const useNotifications = () => useQuery({ queryKey: ['notifications'], queryFn: () => api.get('/v1/notifications'), refetchOnMount: 'always' });
/** Open notices (those still holding) and the last few resolved, refreshed like usage. */
export const useOpenNotices = () =>
  useQuery({ queryKey: ['notices', 'open'], queryFn: () => api.get('/v1/notices', { params: { query: { state: 'open', limit: 50 } } }), refetchInterval: LIVE });
export const useResolvedNotices = () =>
  useQuery({ queryKey: ['notices', 'resolved'], queryFn: () => api.get('/v1/notices', { params: { query: { state: 'resolved', limit: 5 } } }), refetchInterval: LIVE });
