import { useQuery } from '@tanstack/react-query';
import { api } from './client';

/** The account, its plan's limits and 2FA state. */
export const useMe = () => useQuery({ queryKey: ['me'], queryFn: () => api.get('/v1/me') });
/** Usage of the period against every limit, and alerts per day. */
export const useUsage = () => useQuery({ queryKey: ['usage'], queryFn: () => api.get('/v1/usage') });
export const useTracks = () => useQuery({ queryKey: ['tracks'], queryFn: () => api.get('/v1/tracks') });
export const useAccountTracks = () => useQuery({ queryKey: ['accounts'], queryFn: () => api.get('/v1/accounts') });
export const useNotifications = () => useQuery({ queryKey: ['notifications'], queryFn: () => api.get('/v1/notifications') });
