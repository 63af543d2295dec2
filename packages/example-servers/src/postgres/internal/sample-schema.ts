// The sample database the embedded default is seeded with: a small shop (customers, products, orders,
// order lines), a view and a materialized view in a second schema. Deterministic: no random(), no now().

/** SQL that creates and fills the sample schema, then analyzes it so row estimates are real. */
export const SAMPLE_SCHEMA_SQL = `
CREATE TABLE customers (
  id          bigserial PRIMARY KEY,
  name        text        NOT NULL,
  email       text        NOT NULL UNIQUE,
  country     char(2)     NOT NULL,
  signed_up   timestamptz NOT NULL,
  tags        text[]      NOT NULL DEFAULT '{}'
);
COMMENT ON TABLE customers IS 'People who have an account in the shop';
COMMENT ON COLUMN customers.country IS 'ISO 3166-1 alpha-2 country code';

CREATE TABLE products (
  id          serial PRIMARY KEY,
  sku         varchar(20)   NOT NULL UNIQUE,
  name        text          NOT NULL,
  category    text          NOT NULL,
  price       numeric(10,2) NOT NULL CHECK (price >= 0),
  attributes  jsonb         NOT NULL DEFAULT '{}'
);
COMMENT ON TABLE products IS 'The catalogue';

CREATE TABLE orders (
  id              bigserial PRIMARY KEY,
  customer_id     bigint      NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  status          text        NOT NULL CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled')),
  ordered_at      timestamptz NOT NULL,
  shipped_on      date,
  delivery_window interval
);
COMMENT ON TABLE orders IS 'One row per checkout';
CREATE INDEX orders_customer_id_idx ON orders (customer_id);
CREATE INDEX orders_ordered_at_idx ON orders (ordered_at);

CREATE TABLE order_items (
  order_id    bigint        NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  line        integer       NOT NULL,
  product_id  integer       NOT NULL REFERENCES products (id),
  quantity    integer       NOT NULL CHECK (quantity > 0),
  unit_price  numeric(10,2) NOT NULL,
  PRIMARY KEY (order_id, line)
);
COMMENT ON TABLE order_items IS 'The lines of an order, at the price paid';
CREATE INDEX order_items_product_id_idx ON order_items (product_id);

INSERT INTO customers (name, email, country, signed_up, tags)
SELECT first || ' ' || last,
       lower(first) || '.' || lower(last) || '@example.com',
       (ARRAY['FR', 'DE', 'US', 'JP', 'BR', 'IN'])[1 + i % 6],
       timestamptz '2024-01-01 09:00:00+00' + (i * 7) * interval '1 day' + (i * 37) * interval '1 minute',
       CASE WHEN i % 5 = 0 THEN ARRAY['vip'] WHEN i % 3 = 0 THEN ARRAY['newsletter', 'beta'] ELSE '{}' END
FROM generate_series(1, 24) AS i,
     LATERAL (SELECT (ARRAY['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken'])[1 + i % 8] AS first,
                     (ARRAY['Lovelace', 'Turing', 'Hopper'])[1 + i % 3] AS last) AS n;

INSERT INTO products (sku, name, category, price, attributes) VALUES
  ('BK-001', 'The Art of Computer Programming', 'books', 189.99, '{"pages": 3168, "volumes": 4}'),
  ('BK-002', 'Structure and Interpretation of Computer Programs', 'books', 55.00, '{"pages": 657}'),
  ('BK-003', 'A Discipline of Programming', 'books', 42.50, '{"pages": 217}'),
  ('KB-010', 'Mechanical keyboard', 'hardware', 129.00, '{"switches": "brown", "layout": "ISO"}'),
  ('MS-011', 'Trackball', 'hardware', 79.90, '{"buttons": 4}'),
  ('MN-012', '27-inch monitor', 'hardware', 349.00, '{"resolution": [2560, 1440]}'),
  ('MG-020', 'Coffee mug', 'merch', 12.00, '{"volume_ml": 350}'),
  ('TS-021', 'T-shirt', 'merch', 24.00, '{"sizes": ["S", "M", "L", "XL"]}'),
  ('ST-022', 'Sticker pack', 'merch', 4.50, '{}'),
  ('CB-030', 'USB-C cable', 'accessories', 9.99, '{"length_m": 1.5}'),
  ('CH-031', 'Laptop charger', 'accessories', 59.00, '{"watts": 96}'),
  ('BG-032', 'Laptop bag', 'accessories', 64.00, '{"colour": "grey"}');

INSERT INTO orders (customer_id, status, ordered_at, shipped_on, delivery_window)
SELECT 1 + (i * 7) % 24,
       (ARRAY['pending', 'paid', 'shipped', 'delivered', 'delivered', 'delivered', 'cancelled'])[1 + i % 7],
       timestamptz '2024-03-01 10:00:00+00' + i * interval '2 days 3 hours 17 minutes',
       CASE WHEN i % 7 BETWEEN 2 AND 5 THEN date '2024-03-02' + i * 2 END,
       CASE WHEN i % 7 BETWEEN 2 AND 5 THEN (1 + i % 4) * interval '1 day' + interval '4 hours' END
FROM generate_series(1, 120) AS i;

INSERT INTO order_items (order_id, line, product_id, quantity, unit_price)
SELECT o.id, l, p.id, 1 + (o.id + l) % 3, p.price
FROM orders AS o
CROSS JOIN LATERAL generate_series(1, 1 + o.id % 3) AS l
JOIN products AS p ON p.id = 1 + (o.id * 5 + l * 3) % 12;

CREATE VIEW order_totals AS
SELECT o.id AS order_id, o.customer_id, o.status, o.ordered_at,
       sum(i.quantity * i.unit_price) AS total, count(*) AS lines
FROM orders AS o JOIN order_items AS i ON i.order_id = o.id
GROUP BY o.id;
COMMENT ON VIEW order_totals IS 'Order amounts, computed from their lines';

CREATE SCHEMA analytics;
COMMENT ON SCHEMA analytics IS 'Derived data';
CREATE MATERIALIZED VIEW analytics.monthly_revenue AS
SELECT date_trunc('month', ordered_at AT TIME ZONE 'UTC')::date AS month,
       count(*) AS orders, sum(total) AS revenue
FROM order_totals
WHERE status <> 'cancelled'
GROUP BY 1;

ANALYZE;
`;
