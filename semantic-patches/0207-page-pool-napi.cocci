// retrofi rule 0207-page-pool-napi
// must-match: no
//   (only mt76, a vendor driver, sets it; a source without the vendor
//   drivers has nothing to match)
// upstream: "page_pool: allow caching from safely localized NAPI" (v6.4)
//   gave struct page_pool_params a napi member: the NAPI instance in whose
//   context pages may go straight back to the pool's cache. mt76's
//   mt76_create_page_pool() sets it for its receive queues.
// targets: kernels older than 6.4 (real targets 6.1 and 5.10)
// why: a header cannot add a member to struct page_pool_params. Before
//   6.4 a page pool has no such fast path, and pages come back through
//   its ring as they did then, so the assignment is left out there: the
//   pool works the same, without the optimisation. The rule wraps the
//   if that assigns it, mt76's form (an if without braces keeps its body),
//   decided by the kernel version (a stable kernel does not grow a
//   structure member); an assignment of another form is left alone, and
//   the build below 6.4 fails on it loudly.

@@
struct page_pool_params P;
expression C, E;
@@
+#if RETROFI_LINUX_IS_GEQ(6,4,0)
 if (C)
 	P.napi = E;
+#endif
