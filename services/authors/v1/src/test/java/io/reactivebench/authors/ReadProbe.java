package io.reactivebench.authors;

import io.reactivebench.jdbc.Read;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.SystemException;
import jakarta.transaction.TransactionManager;

/** A read that says, from inside, whether a transaction runs around it (jakarta.transaction.Status). */
@ApplicationScoped
public class ReadProbe {
    @Inject
    TransactionManager transactions;

    @Read
    public int transactionStatus() throws SystemException {
        return transactions.getStatus();
    }
}
