select id as order_id, customer_id, order_date, status, amount
from {{ source('raw', 'raw_orders') }}
