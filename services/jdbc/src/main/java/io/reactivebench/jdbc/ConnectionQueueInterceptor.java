package io.reactivebench.jdbc;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;

/**
 * Every {@code @Transactional} method (REQUIRED, the default: the only kind these services have) waits its turn in
 * the {@link ConnectionQueue} before its transaction begins, and gives its place back after the transaction has ended
 * and its connection is back in the pool: it runs outside the transaction's own interceptor (PLATFORM_BEFORE + 200).
 */
@Transactional
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class ConnectionQueueInterceptor {
    private final ConnectionQueue queue;
    private final TransactionManager transactions;

    @Inject
    public ConnectionQueueInterceptor(ConnectionQueue queue, TransactionManager transactions) {
        this.queue = queue;
        this.transactions = transactions;
    }

    @AroundInvoke
    Object inTurn(InvocationContext call) throws Exception {
        if (transactions.getStatus() != Status.STATUS_NO_TRANSACTION) {
            return call.proceed(); // joins a transaction that already holds its place (and its connection)
        }
        return queue.inTurn(call::proceed);
    }
}
