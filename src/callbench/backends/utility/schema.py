"""The two services' tables: a billing service (customers, premises, bills with line items, usage,
cards, payments, extensions, suppliers) and a loan engine (clients, zero-interest instalment loans,
their schedules and repayments), linked by the account number.

Money is stored in whole cents (INTEGER), dates as ISO text. Every table has a one-column primary
key, which the services backend's ledger names rows by.
"""

BILLING = """
CREATE TABLE suppliers (
    supplier_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    phone TEXT NOT NULL,
    price_per_kwh TEXT NOT NULL,
    is_default INTEGER NOT NULL
);
CREATE TABLE customers (
    account_number TEXT PRIMARY KEY,
    full_name TEXT NOT NULL,
    email TEXT NOT NULL,
    phone TEXT NOT NULL,
    household_size INTEGER NOT NULL,
    annual_income INTEGER,
    income_percent_of_poverty_level INTEGER,
    supplier_id TEXT NOT NULL REFERENCES suppliers(supplier_id),
    paperless INTEGER NOT NULL,
    medical_certificate_until TEXT,
    shutoff_notice INTEGER NOT NULL,
    extension_last_granted TEXT
);
CREATE TABLE premises (
    premise_id TEXT PRIMARY KEY,
    account_number TEXT NOT NULL REFERENCES customers(account_number),
    address TEXT NOT NULL,
    postal_code TEXT NOT NULL,
    meter_id TEXT NOT NULL
);
CREATE TABLE usage (
    usage_id TEXT PRIMARY KEY,
    account_number TEXT NOT NULL REFERENCES customers(account_number),
    period_start TEXT NOT NULL,
    period_end TEXT NOT NULL,
    kwh INTEGER NOT NULL
);
CREATE TABLE bills (
    bill_id TEXT PRIMARY KEY,
    account_number TEXT NOT NULL REFERENCES customers(account_number),
    period_start TEXT,
    period_end TEXT,
    issued TEXT NOT NULL,
    due_date TEXT NOT NULL,
    kwh INTEGER NOT NULL,
    total_cents INTEGER NOT NULL,
    paid_cents INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'paid', 'arranged'))
);
CREATE TABLE bill_lines (
    line_id TEXT PRIMARY KEY,
    bill_id TEXT NOT NULL REFERENCES bills(bill_id),
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    quantity TEXT,
    unit_price TEXT,
    amount_cents INTEGER NOT NULL
);
CREATE TABLE cards (
    card_id TEXT PRIMARY KEY,
    account_number TEXT NOT NULL REFERENCES customers(account_number),
    brand TEXT NOT NULL,
    last4 TEXT NOT NULL,
    expires TEXT NOT NULL,
    declines INTEGER NOT NULL
);
CREATE TABLE payments (
    payment_id TEXT PRIMARY KEY,
    account_number TEXT NOT NULL REFERENCES customers(account_number),
    card_id TEXT REFERENCES cards(card_id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    paid_on TEXT NOT NULL,
    toward TEXT NOT NULL CHECK (toward IN ('bills', 'arrangement'))
);
CREATE TABLE extensions (
    extension_id TEXT PRIMARY KEY,
    account_number TEXT NOT NULL REFERENCES customers(account_number),
    bill_id TEXT NOT NULL REFERENCES bills(bill_id),
    days INTEGER NOT NULL,
    granted_on TEXT NOT NULL,
    new_due_date TEXT NOT NULL
);
"""

LOANS = """
CREATE TABLE clients (
    client_id TEXT PRIMARY KEY,
    account_number TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL
);
CREATE TABLE loans (
    loan_id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients(client_id),
    principal_cents INTEGER NOT NULL,
    down_payment_cents INTEGER NOT NULL,
    term_months INTEGER NOT NULL,
    instalment_cents INTEGER NOT NULL,
    start_date TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'broken', 'closed')),
    broken_on TEXT
);
CREATE TABLE schedule (
    instalment_id TEXT PRIMARY KEY,
    loan_id TEXT NOT NULL REFERENCES loans(loan_id),
    number INTEGER NOT NULL,
    due_date TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    paid_cents INTEGER NOT NULL
);
CREATE TABLE repayments (
    repayment_id TEXT PRIMARY KEY,
    loan_id TEXT NOT NULL REFERENCES loans(loan_id),
    amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
    transaction_date TEXT NOT NULL
);
"""
