export { NOTICE_KINDS, noticeKindSchema, DEFAULT_NOTICE_COOLDOWN_SECONDS, raiseNotice, resolveNotice, openNotice, findNotice, deliverNoticeEntries, noticeSql, resolveUntrackedSource } from './notices';
export type { Notice, NoticeKind, NoticeState, NoticeCondition, RaiseOptions } from './notices';
