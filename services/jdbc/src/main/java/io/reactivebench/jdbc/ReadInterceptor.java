package io.reactivebench.jdbc;

import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * How a {@link Read} reads, in its turn in the {@link ConnectionQueue}:
 * <ul>
 * <li>{@code jdbc.reads=autocommit} (as the builds ship, this module's configuration): no transaction; the query
 * alone, in the request's session (Quarkus' request-scoped session), on a connection Hibernate borrows for that query
 * and gives back as soon as it has the rows (outside a transaction Hibernate ends each operation as one), before the
 * place in the queue is given back;</li>
 * <li>{@code jdbc.reads=transaction}: in a transaction of its own, as {@code @Transactional} would: BEGIN, the query,
 * COMMIT, and the session lives as long as the transaction.</li>
 * </ul>
 * A read inside a transaction that already runs joins it.
 */
@Read
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class ReadInterceptor {
    public enum Mode {
        TRANSACTION, AUTOCOMMIT
    }

    private final ConnectionQueue queue;
    private final TransactionManager transactions;
    private final Mode mode;

    @Inject
    public ReadInterceptor(ConnectionQueue queue, TransactionManager transactions,
            @ConfigProperty(name = "jdbc.reads") Mode mode) {
        this.queue = queue;
        this.transactions = transactions;
        this.mode = mode;
    }

    @AroundInvoke
    Object read(InvocationContext call) throws Exception {
        if (transactions.getStatus() != Status.STATUS_NO_TRANSACTION) {
            return call.proceed();
        }
        return switch (mode) {
            case TRANSACTION -> queue.inTurn(() -> QuarkusTransaction.joiningExisting().call(call::proceed));
            case AUTOCOMMIT -> queue.inTurn(call::proceed);
        };
    }
}
